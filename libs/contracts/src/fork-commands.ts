import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Min,
} from 'class-validator';
import type { CommandEnvelope } from './envelope';
import type { RunEventDoc, RunEventType } from './run-event';
import { isPauseRequestRecord, timerRecordOf } from './run-timers';

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
  // An operator's drain-current-node pause request, like its run.paused.
  if (isPauseRequestRecord(event)) return true;
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

/** `RunOptions` (run-options.schema.json): the fields a `branch` may lay over the source's. */
export interface RunOptionsOverlay {
  readonly configurable?: Record<string, unknown>;
  readonly tags?: string[];
  readonly metadata?: Record<string, unknown>;
}

/**
 * `run.fork`: start run `runId` as a fork of `sourceRunId` from `fromSeq` in `mode` (`replay.md`,
 * ADR 0008). The engine answers it from its own record of the source run: its owner (a source of
 * another tenant reads as absent), pinned workflow and event log, split by `forkSourceOf`
 * (engine-domain). `overlay` is a `branch`'s `runOptionsOverlay`, already checked by the gateway.
 *
 * Rolling upgrades: before this shape (ADR 0008, revised) the gateway read the source's log from the projection and sent
 * it split, in `workflowId`, `inputs`, `metadata` (overlay applied), `history`, `resolutions`,
 * `expected` and `conversations`. The engine still accepts that shape (a command of a previous
 * release's gateway, or one left on the topic) for one more release, and decides it from the fields
 * as before; remove them in the release after. Upgrade engines before gateways: an engine of the
 * previous release refuses the new shape (`validation_error`, no `history`).
 */
export class ForkRunData {
  @IsString()
  @Length(1, 128)
  @Matches(/^[A-Za-z0-9._:-]+$/)
  runId!: string;

  @IsString() @Length(1, 128) sourceRunId!: string;
  @IsIn(FORK_MODES) mode!: ForkMode;
  @IsInt() @Min(0) fromSeq!: number;
  /** `branch`: the RunOptions to lay over the source's `run.started` metadata. */
  @IsOptional() @IsObject() overlay?: RunOptionsOverlay;
  /**
   * Whether the caller holds `approvals:respond` (the gateway always says). A fork that reuses a
   * recorded interrupt resolution needs it (ADR 0008): without it the engine refuses `forbidden`.
   * Absent (a previous release's gateway) counts as `false`: such a fork is refused, never let through.
   */
  @IsOptional() @IsBoolean() callerMayResolve?: boolean;

  // --- The previous release's shape (see above): accepted, never sent. ---
  /** @deprecated previous release only: the engine reads the source's workflow from its own record. */
  @IsOptional() @IsString() @Length(1, 200) workflowId?: string;
  /** @deprecated previous release only: the source's `run.started` inputs. */
  @IsOptional() @IsObject() inputs?: Record<string, unknown>;
  /** @deprecated previous release only: the source's `run.started` metadata, overlay applied. */
  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
  /** @deprecated previous release only: the source's events `< fromSeq`. Its presence marks the old shape. */
  @IsOptional() @IsArray() history?: RunEventDoc[];
  /** @deprecated previous release only. */
  @IsOptional() @IsObject() resolutions?: Record<string, ForkResolution>;
  /** @deprecated previous release only. */
  @IsOptional() @IsArray() expected?: ComparableRunEvent[];
  /** @deprecated previous release only. */
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
