import { DomainError, setOwn } from '@openwop/kernel';
import {
  comparableRunEvent,
  TIMER_FIRED,
  timerRecordOf,
  type ComparableRunEvent,
  type ForkMode,
  type ForkResolution,
  type RecordedConversationEvent,
  type RunEventDoc,
  type RunOptionsOverlay,
} from '@openwop/contracts';

/** What the source's `run.started` gives a fork: the inputs and RunOptions metadata it started with. */
export interface ForkStart {
  readonly workflowId: string;
  readonly inputs?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  /** `2` when the source was created under protocol major 2 (ADR 0041); absent for major 1. */
  readonly protocolMajor?: 2;
}

/** What a fork takes from its source's event log. */
export interface ForkSource {
  /** The source's `run.started`. */
  readonly started: ForkStart;
  /** Events `< fromSeq`: fixed history, copied into the fork. */
  readonly history: RunEventDoc[];
  /** The resolutions the fork reuses by key: all of the source's in `replay`, those `< fromSeq` in `branch`. */
  readonly resolutions: Record<string, ForkResolution>;
  /**
   * The interrupts among {@link resolutions} (not the durable timers): someone's answer, or a gate's
   * timeout, that the fork reuses instead of asking again, with the sequence of the source's
   * `interrupt.resolved`. Non-empty means the fork needs `approvals:respond` ({@link assertForkMayReuse}).
   */
  readonly reusedInterrupts: readonly ReusedInterrupt[];
  /** `replay` only: the comparable projection of the events `>= fromSeq`. */
  readonly expected: ComparableRunEvent[];
  /**
   * The source's conversations the reused resolutions closed, by source conversationId: their
   * `conversation.*` events in order. A fork that answers such a conversation from its record
   * re-folds these turns verbatim (RFC 0005 §G, ADR 0023), so its transcript and `messages` channel are the source's.
   */
  readonly conversations: Record<string, RecordedConversationEvent[]>;
}

/** `fromSeq` names no event of the source's log (`replay.md` §Endpoint): `422`. */
export class SequenceNotFound extends DomainError {
  constructor(sourceRunId: string, fromSeq: number, lastSequence: number) {
    super(
      'sequence_not_found',
      `Run ${sourceRunId} has no event at sequence ${fromSeq} (its log holds 0..${lastSequence}).`,
      { sourceRunId, fromSeq, lastSequence },
    );
  }
}

/** The source has no `run.started` (no run to fork): `404`, worded as for any run the caller cannot see. */
export class ForkSourceNotFound extends DomainError {
  constructor(sourceRunId: string) {
    super('not_found', `Run ${sourceRunId} not found.`);
  }
}

/** An interrupt resolution a fork reuses: its key in the source and where the source resolved it. */
export interface ReusedInterrupt {
  readonly key: string;
  readonly sequence: number;
}

/** The scope that answers an interrupt (auth.md §Scopes): reusing a recorded answer needs it too. */
export const FORK_REUSE_SCOPE = 'approvals:respond';

/**
 * A fork that would reuse a recorded interrupt resolution, asked by a caller without
 * `approvals:respond`: `403 forbidden`. The reused answer would let the fork run the nodes after the
 * gate again, a new execution nobody approved (ADR 0008, revision 2026-11-29). `details`:
 * `scopeRequired`, `sourceRunId`, `reusedInterrupts` (count) and `resolvedAtSequence`, the source's
 * first reused resolution: a `branch` with `fromSeq` at or before it asks again and needs no more.
 */
export class ForkReusesResolutions extends DomainError {
  constructor(sourceRunId: string, reused: readonly ReusedInterrupt[]) {
    const first = Math.min(...reused.map((r) => r.sequence));
    super(
      'forbidden',
      `This fork of run ${sourceRunId} reuses ${reused.length} recorded interrupt resolution(s) instead of asking again, which requires the ${FORK_REUSE_SCOPE} scope; ` +
        `a branch with fromSeq <= ${first} asks again instead.`,
      {
        scopeRequired: FORK_REUSE_SCOPE,
        sourceRunId,
        reusedInterrupts: reused.length,
        resolvedAtSequence: first,
      },
    );
  }
}

/**
 * Refuses a fork that reuses a recorded interrupt resolution unless its caller may answer
 * interrupts (`callerMayResolve`: holds `approvals:respond` in the source's tenant).
 *
 * @throws {@link ForkReusesResolutions}
 */
export function assertForkMayReuse(
  sourceRunId: string,
  reused: readonly ReusedInterrupt[],
  callerMayResolve: boolean,
): void {
  if (!callerMayResolve && reused.length > 0) throw new ForkReusesResolutions(sourceRunId, reused);
}

const CONVERSATION_TYPES: readonly string[] = [
  'conversation.opened',
  'conversation.exchanged',
  'conversation.closed',
];

/**
 * Splits a source run's events (any order) for a fork from `fromSeq` in `mode` (`replay.md`, ADR 0008).
 *
 * @throws {@link SequenceNotFound} when `fromSeq` is no sequence of the log (past its end, or a gap);
 * {@link ForkSourceNotFound} for a log without `run.started`.
 */
export function forkSourceOf(events: readonly RunEventDoc[], fromSeq: number, mode: ForkMode): ForkSource {
  const sorted = [...events].sort((a, b) => a.sequence - b.sequence);
  const sourceRunId = sorted[0]?.runId ?? '';
  if (!sorted.some((e) => e.sequence === fromSeq))
    throw new SequenceNotFound(sourceRunId, fromSeq, sorted.at(-1)?.sequence ?? -1);
  const startedEvent = sorted.find((e) => e.type === 'run.started');
  if (!startedEvent) throw new ForkSourceNotFound(sourceRunId);
  const resolutions: Record<string, ForkResolution> = {};
  const conversationOfKey: Record<string, string> = {};
  const recorded: Record<string, RecordedConversationEvent[]> = {};
  for (const e of sorted) {
    if (e.type === 'interrupt.requested') {
      const p = (e.payload ?? {}) as { key?: unknown; data?: { conversationId?: unknown } };
      if (typeof p.key === 'string' && typeof p.data?.conversationId === 'string')
        setOwn(conversationOfKey, p.key, p.data.conversationId);
    }
    if (CONVERSATION_TYPES.includes(e.type)) {
      const id = (e.payload as { conversationId?: unknown } | null)?.conversationId;
      if (typeof id === 'string') {
        if (!Object.hasOwn(recorded, id)) setOwn(recorded, id, []);
        recorded[id]!.push({
          type: e.type as RecordedConversationEvent['type'],
          ...(e.nodeId ? { nodeId: e.nodeId } : {}),
          payload: e.payload,
        });
      }
    }
  }
  const conversations: Record<string, RecordedConversationEvent[]> = {};
  const reusedInterrupts: ReusedInterrupt[] = [];
  for (const e of sorted) {
    if (mode === 'branch' && e.sequence >= fromSeq) continue;
    const timer = timerRecordOf(e);
    // A fired timer is answered like an interrupt: a fork that reaches it again does not wait again.
    if (timer?.event === TIMER_FIRED && !Object.hasOwn(resolutions, timer.timerKey))
      setOwn(resolutions, timer.timerKey, { value: null });
    if (e.type !== 'interrupt.resolved') continue;
    const p = (e.payload ?? {}) as Record<string, unknown>;
    const key = typeof p.key === 'string' ? p.key : undefined;
    if (key === undefined || Object.hasOwn(resolutions, key)) continue;
    const by = {
      ...(typeof p.resolvedBy === 'string' ? { resolvedBy: p.resolvedBy } : {}),
      ...(typeof p.resolvedAt === 'string' ? { resolvedAt: p.resolvedAt } : {}),
    };
    setOwn(
      resolutions,
      key,
      p.outcome === 'timeout' || p.reason === 'timeout'
        ? { timeout: true, ...by }
        : { value: p.resumeValue ?? null, ...by },
    );
    reusedInterrupts.push({ key, sequence: e.sequence });
    const conversationId = Object.hasOwn(conversationOfKey, key) ? conversationOfKey[key]! : undefined;
    if (conversationId !== undefined && Object.hasOwn(recorded, conversationId))
      setOwn(conversations, conversationId, recorded[conversationId]!);
  }
  return {
    started: startOf(startedEvent),
    conversations,
    history: sorted.filter((e) => e.sequence < fromSeq),
    resolutions,
    reusedInterrupts,
    expected:
      mode === 'replay'
        ? sorted
            .filter((e) => e.sequence >= fromSeq)
            .map(comparableRunEvent)
            .filter((e): e is ComparableRunEvent => e !== undefined)
        : [],
  };
}

function startOf(started: RunEventDoc): ForkStart {
  const p = (started.payload ?? {}) as {
    workflowId?: unknown;
    inputs?: unknown;
    metadata?: unknown;
    protocolMajor?: unknown;
  };
  return {
    workflowId: String(p.workflowId),
    ...(isObject(p.inputs) ? { inputs: p.inputs } : {}),
    ...(isObject(p.metadata) ? { metadata: p.metadata } : {}),
    ...(p.protocolMajor === 2 ? { protocolMajor: 2 as const } : {}),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The source's `run.started` metadata with a branch's overlay (`replay.md` §Endpoint): `configurable`
 * merged key by key, `metadata` and `tags` laid over. No overlay (or an empty one): the source's, as is.
 */
export function overlaidMetadata(
  metadata: Record<string, unknown> | undefined,
  overlay: RunOptionsOverlay | undefined,
): Record<string, unknown> | undefined {
  if (!overlay || Object.keys(overlay).length === 0) return metadata;
  const base = metadata ?? {};
  const configurable = isObject(base.configurable) ? base.configurable : undefined;
  return {
    ...base,
    ...overlay.metadata,
    ...(configurable || overlay.configurable
      ? { configurable: { ...configurable, ...overlay.configurable } }
      : {}),
    ...(overlay.tags ? { tags: overlay.tags } : {}),
  };
}
