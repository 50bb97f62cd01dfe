import { IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Min } from 'class-validator';
import { setOwn } from '@openwop/kernel';
import type { CommandEnvelope } from './envelope';
import type { RunEventDoc, RunEventType } from './run-event';
import { TIMER_FIRED, timerRecordOf } from './run-timers';

/** The two modes of `POST /v1/runs/{runId}:fork` (`replay.md` §Two modes). */
export const FORK_MODES = ['replay', 'branch'] as const;
export type ForkMode = (typeof FORK_MODES)[number];

/**
 * How the source run resolved an interrupt key (from its `interrupt.resolved`): the resume value,
 * or its timeout. `resolvedBy`/`resolvedAt` are kept so that a fork that inherits the wait itself
 * (its fixed history ends while the node was suspended) can record the same resolution.
 */
export type ForkResolution = ({ readonly value: unknown } | { readonly timeout: true }) & {
  readonly resolvedBy?: string;
  readonly resolvedAt?: string;
};

/**
 * A source event as a replay compares it: its type, node and payload with the volatile parts taken
 * out ({@link comparableRunEvent}). `sequence` and `eventId` are the source's, for reporting only.
 */
export interface ComparableRunEvent {
  readonly sequence: number;
  readonly eventId: string;
  readonly type: RunEventType;
  readonly nodeId?: string;
  readonly payload: unknown;
}

/**
 * Event types a replay does not compare. A replay answers every interrupt the source resolved from
 * the recorded resolution instead of asking again (`interrupt.md` §Replay determinism), so the whole
 * wait — request, suspension, resolution, the votes and asks noted with it, resumption — exists only
 * in the source. Cancellation is an external command, not something the code decides; and
 * divergence reports are diagnostics, not behaviour.
 */
export const REPLAY_UNCOMPARED_EVENT_TYPES: readonly RunEventType[] = [
  'interrupt.requested',
  'approval.requested',
  'clarification.requested',
  'node.suspended',
  'interrupt.resolved',
  'approval.received',
  'clarification.resolved',
  'node.resumed',
  'node.cancelled',
  'run.cancelled',
  'replay.diverged',
  'replay.divergedAtRefusal',
  // A conversation's turns are the wait's record (like interrupt.resolved): a replay reads its closure instead.
  'conversation.opened',
  'conversation.exchanged',
  'conversation.closed',
  // An operator's pause is not the workflow's doing; a replay re-folds it as a no-op (rest-endpoints.md §pause).
  'run.paused',
  'run.resumed',
];

/** Payload fields a replay does not compare: the fork's back-pointer, and interrupt ids (minted per request; a replay makes fewer requests). */
const VOLATILE_PAYLOAD_FIELDS: readonly string[] = ['forkedFrom', 'interruptId'];

/** What run-id-derived strings are rewritten to before comparing. */
export const COMPARABLE_RUN_ID = '$run';

/**
 * Rewrites the strings derived from run id `from` (the id itself, or `${from}:...` — derived
 * interrupt keys and ids, default artifact ids) to run id `to`, deeply. Other values are kept.
 */
export function rebaseRunId<T>(value: T, from: string, to: string): T {
  const prefix = `${from}:`;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v === from ? to : v.startsWith(prefix) ? `${to}:${v.slice(prefix.length)}` : v;
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Whether a replay leaves `event` out of the comparison (see {@link REPLAY_UNCOMPARED_EVENT_TYPES}). */
export function isUncomparedEvent(event: Pick<RunEventDoc, 'type' | 'nodeId' | 'payload'>): boolean {
  if (REPLAY_UNCOMPARED_EVENT_TYPES.includes(event.type)) return true;
  // An agent's streamed reply inside a conversation is part of the turn, not of the node's own output.
  if (event.type === 'output.chunk') {
    const meta = (event.payload as { meta?: { conversationId?: unknown } } | null)?.meta;
    if (typeof meta?.conversationId === 'string') return true;
  }
  // A durable timer's records are the wait's record (like interrupt.resolved): a replay reads the firing instead.
  if (timerRecordOf(event)) return true;
  // A note recorded with an interrupt's resolution (an ask, a comment): the host's record, not the node's.
  if (event.type === 'log.appended' && event.nodeId === undefined) {
    const fields = (event.payload as { fields?: { interruptId?: unknown } } | null)?.fields;
    return typeof fields?.interruptId === 'string';
  }
  return false;
}

/**
 * The comparable projection of an event, or `undefined` when replays do not compare its type.
 * Dropped: the envelope (ids, run id, sequence, timestamp, causation, schema version), the payload's
 * {@link VOLATILE_PAYLOAD_FIELDS}; strings derived from the event's run id read {@link COMPARABLE_RUN_ID}.
 */
export function comparableRunEvent(event: RunEventDoc): ComparableRunEvent | undefined {
  if (isUncomparedEvent(event)) return undefined;
  let payload = rebaseRunId(event.payload ?? null, event.runId, COMPARABLE_RUN_ID);
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    payload = Object.fromEntries(
      Object.entries(payload).filter(([k]) => !VOLATILE_PAYLOAD_FIELDS.includes(k)),
    );
  }
  return {
    sequence: event.sequence,
    eventId: event.eventId,
    type: event.type,
    ...(event.nodeId !== undefined ? { nodeId: event.nodeId } : {}),
    payload,
  };
}

/** JSON with object keys sorted and `undefined` members dropped: key order does not survive jsonb. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** How a replayed event differs from the source's event at the same place, or `undefined` if it does not. */
export function comparableDifference(
  original: ComparableRunEvent | undefined,
  replayed: ComparableRunEvent,
): 'extra' | 'type-mismatch' | 'output' | undefined {
  if (!original) return 'extra';
  if (original.type !== replayed.type) return 'type-mismatch';
  if (original.nodeId !== replayed.nodeId) return 'output';
  return canonicalJson(original.payload) === canonicalJson(replayed.payload) ? undefined : 'output';
}

/** A recorded conversation event a replay re-folds (RFC 0005 §G): its type, node and payload. */
export interface RecordedConversationEvent {
  readonly type: 'conversation.opened' | 'conversation.exchanged' | 'conversation.closed';
  readonly nodeId?: string;
  readonly payload: unknown;
}

/** What a fork takes from its source's event log. */
export interface ForkSource {
  /** Events `< fromSeq`: fixed history, copied into the fork. */
  readonly history: RunEventDoc[];
  /** The resolutions the fork reuses by key: all of the source's in `replay`, those `< fromSeq` in `branch`. */
  readonly resolutions: Record<string, ForkResolution>;
  /** `replay` only: the comparable projection of the events `>= fromSeq`. */
  readonly expected: ComparableRunEvent[];
  /**
   * The source's conversations the reused resolutions closed, by source conversationId: their
   * `conversation.*` events in order. A fork that answers such a conversation from its record
   * re-folds these turns verbatim (RFC 0005 §G), so its transcript and `messages` channel are the source's.
   */
  readonly conversations: Record<string, RecordedConversationEvent[]>;
}

const CONVERSATION_TYPES: readonly string[] = ['conversation.opened', 'conversation.exchanged', 'conversation.closed'];

/** Splits a source run's events (any order) for a fork from `fromSeq` in `mode`. */
export function forkSourceOf(events: readonly RunEventDoc[], fromSeq: number, mode: ForkMode): ForkSource {
  const sorted = [...events].sort((a, b) => a.sequence - b.sequence);
  const resolutions: Record<string, ForkResolution> = {};
  const conversationOfKey: Record<string, string> = {};
  const recorded: Record<string, RecordedConversationEvent[]> = {};
  for (const e of sorted) {
    if (e.type === 'interrupt.requested') {
      const p = (e.payload ?? {}) as { key?: unknown; data?: { conversationId?: unknown } };
      if (typeof p.key === 'string' && typeof p.data?.conversationId === 'string') setOwn(conversationOfKey, p.key, p.data.conversationId);
    }
    if (CONVERSATION_TYPES.includes(e.type)) {
      const id = (e.payload as { conversationId?: unknown } | null)?.conversationId;
      if (typeof id === 'string') {
        if (!Object.hasOwn(recorded, id)) setOwn(recorded, id, []);
        recorded[id]!.push({ type: e.type as RecordedConversationEvent['type'], ...(e.nodeId ? { nodeId: e.nodeId } : {}), payload: e.payload });
      }
    }
  }
  const conversations: Record<string, RecordedConversationEvent[]> = {};
  for (const e of sorted) {
    if (mode === 'branch' && e.sequence >= fromSeq) continue;
    const timer = timerRecordOf(e);
    // A fired timer is answered like an interrupt: a fork that reaches it again does not wait again.
    if (timer?.event === TIMER_FIRED && !Object.hasOwn(resolutions, timer.timerKey)) setOwn(resolutions, timer.timerKey, { value: null });
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
      p.outcome === 'timeout' || p.reason === 'timeout' ? { timeout: true, ...by } : { value: p.resumeValue ?? null, ...by },
    );
    const conversationId = Object.hasOwn(conversationOfKey, key) ? conversationOfKey[key]! : undefined;
    if (conversationId !== undefined && Object.hasOwn(recorded, conversationId))
      setOwn(conversations, conversationId, recorded[conversationId]!);
  }
  return {
    conversations,
    history: sorted.filter((e) => e.sequence < fromSeq),
    resolutions,
    expected:
      mode === 'replay'
        ? sorted
            .filter((e) => e.sequence >= fromSeq)
            .map(comparableRunEvent)
            .filter((e): e is ComparableRunEvent => e !== undefined)
        : [],
  };
}

/**
 * `run.fork`: start run `runId` as a fork of `sourceRunId` (`replay.md`). The gateway read the
 * source's events and split them ({@link forkSourceOf}); the engine takes the source's pinned
 * workflow and owner from its own record of the source run.
 */
export class ForkRunData {
  @IsString()
  @Length(1, 128)
  @Matches(/^[A-Za-z0-9._:-]+$/)
  runId!: string;

  @IsString() @Length(1, 128) sourceRunId!: string;
  @IsString() @Length(1, 200) workflowId!: string;
  @IsIn(FORK_MODES) mode!: ForkMode;
  @IsInt() @Min(0) fromSeq!: number;
  /** The source's `run.started` inputs. */
  @IsOptional() @IsObject() inputs?: Record<string, unknown>;
  /** The source's `run.started` metadata; in `branch` mode with the `runOptionsOverlay` applied. */
  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
  @IsArray() history!: RunEventDoc[];
  @IsObject() resolutions!: Record<string, ForkResolution>;
  @IsArray() expected!: ComparableRunEvent[];
  /** See {@link ForkSource.conversations}; absent from forks sent before it existed. */
  @IsOptional() @IsObject() conversations?: Record<string, RecordedConversationEvent[]>;
}

export type ForkRunCommand = CommandEnvelope<'run.fork', ForkRunData>;

/** The reply to `run.fork`. */
export interface ForkRunResult {
  readonly runId: string;
  readonly status: string;
  /** Sequence of the last event the command wrote; readers wait for it to be projected. */
  readonly lastSequence: number;
}
