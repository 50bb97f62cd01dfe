import type {
  ApprovalData,
  ClarificationData,
  ConversationCloseData,
  ConversationExchangeData,
  ConversationStartData,
  CustomData,
  ExternalEventData,
  InterruptPayload,
  InterruptRequestedPayload,
  LowConfidenceData,
  OutputChunkPayload,
  RunEvent,
  RunEventOf,
  RunEventType,
} from './generated/run-events';

export interface ClientOptions {
  /** The host's base URL, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /** API key sent as `Authorization: Bearer`; token routes never send it. */
  readonly apiKey?: string | undefined;
  /** `fetch` to use (tests, proxies); the global one by default. */
  readonly fetch?: typeof fetch | undefined;
}

export interface CreateRunRequest {
  readonly workflowId: string;
  readonly inputs?: Record<string, unknown> | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly tags?: string[] | undefined;
  readonly callbackUrl?: string | undefined;
  readonly configurable?: Record<string, unknown> | undefined;
}

export interface CreateRunResponse {
  readonly runId: string;
  readonly status: string;
  readonly eventsUrl: string;
  readonly statusUrl: string;
}

/**
 * The pending interrupt of a run snapshot, with the signed tokens (RFC 0093) the key may hold: the
 * resolving `interruptToken`/`callbackUrl` only for a key with `approvals:respond`, the inspect-only
 * `inspectToken`/`inspectUrl` for any reader; none once they expired (`tokenExpired: true`).
 */
export interface PendingInterrupt {
  readonly interruptId: string;
  readonly nodeId: string;
  readonly kind: string;
  readonly key?: string;
  readonly data?: unknown;
  readonly resumeSchema?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly requestedAt: string;
  readonly interruptToken?: string;
  readonly callbackUrl?: string;
  readonly inspectToken?: string;
  readonly inspectUrl?: string;
  readonly tokenExpiresAt?: string;
  readonly tokenExpired?: boolean;
  readonly [field: string]: unknown;
}

export interface RunSnapshotBody {
  readonly runId: string;
  readonly workflowId: string;
  readonly status: string;
  readonly currentNodeId?: string;
  readonly interrupt?: PendingInterrupt;
  readonly [field: string]: unknown;
}

export interface PollResponse {
  readonly events: RunEvent[];
  readonly nextAfter: number;
  readonly runStatus: string;
  readonly isComplete?: boolean;
}

/** One run of `GET /v1/runs`. */
export interface RunSummary {
  readonly runId: string;
  readonly workflowId: string;
  readonly status: string;
  readonly currentNodeId?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface ListRunsQuery {
  readonly status?: string | undefined;
  readonly workflowId?: string | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

export interface RunPage {
  readonly runs: RunSummary[];
  readonly nextCursor: string | null;
}

/** One pending interrupt of `GET /v1/interrupts`. */
export interface InterruptSummary {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  readonly workflowId: string;
  readonly kind: string;
  readonly key: string;
  readonly data: unknown;
  readonly requestedAt: string;
  readonly ageMs: number;
  readonly timeoutMs?: number;
  readonly resolveUrl: string;
}

export interface ListInterruptsQuery {
  readonly kind?: string | undefined;
  readonly runId?: string | undefined;
  readonly minAgeMs?: number | undefined;
  readonly maxAgeMs?: number | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

export interface InterruptPage {
  readonly interrupts: InterruptSummary[];
  readonly nextCursor: string | null;
}

/** Answer of a resolve: `resolved` resumes the node; `pending` was recorded (an `ask`, a vote short of quorum). */
export interface ResolveResult {
  readonly runId?: string;
  readonly nodeId?: string;
  readonly interruptId?: string;
  readonly status: 'resolved' | 'pending' | 'accepted';
  readonly conversationId?: string;
  readonly turnIndex?: number;
  readonly [field: string]: unknown;
}

/** An interrupt as the host holds it: the `interrupt.requested` payload, its `data` left to the reader. */
export type InterruptRecord = Omit<InterruptRequestedPayload, 'data'> & { readonly data: unknown };

/** `GET /v1/interrupts/{token}`: what a token holder may see of the interrupt. */
export interface TokenInspection extends InterruptRecord {
  readonly expiresAt: string;
  readonly intent: 'resolve' | 'inspect';
}

export interface ForkRunRequest {
  readonly mode: 'replay' | 'branch';
  readonly fromSeq?: number | undefined;
  readonly runOptionsOverlay?: Record<string, unknown> | undefined;
  readonly [field: string]: unknown;
}

export interface ForkRunResponse {
  readonly runId: string;
  readonly status: string;
  readonly [field: string]: unknown;
}

/** A user turn of a conversation (`conversation-turn.schema.json`); the host assigns `ts` and `turnIndex`. */
export interface ConversationTurnInput {
  readonly messageId: string;
  readonly from: string;
  readonly role: 'user' | 'agent' | 'system';
  readonly content: unknown;
}

export interface ConversationTurn extends ConversationTurnInput {
  readonly ts?: number;
  readonly turnIndex: number;
  readonly [field: string]: unknown;
}

export interface ConversationSummary {
  readonly conversationId: string;
  readonly nodeId: string;
  readonly status: 'open' | 'closed';
  readonly turnCount: number;
  readonly openedAt: string;
  readonly closedAt?: string;
}

export interface ConversationPage {
  readonly conversationId: string;
  readonly nodeId: string;
  readonly status: 'open' | 'closed';
  readonly turns: ConversationTurn[];
  readonly nextCursor?: number;
}

/**
 * One SSE frame as it arrives: `id` the event sequence, `event` the frame name, `data` the parsed
 * JSON. What {@link streamRunEvents} classifies into a {@link RunStreamEvent}.
 */
export interface RawStreamFrame {
  readonly id?: number;
  readonly event: string;
  readonly data: unknown;
}

/** A frame carrying run event `T` (every mode but `values`); `data.type` is `type`. */
export type RunEventFrame<T extends RunEventType = RunEventType> = {
  [K in T]: { readonly type: K; readonly id?: number; readonly event: string; readonly data: RunEventOf<K> };
}[T];

/** The `values` mode frame: the whole run snapshot after a change (`data.payload`). */
export interface SnapshotFrame {
  readonly type: 'state.snapshot';
  readonly id?: number;
  readonly event: string;
  readonly data: StateSnapshotEvent;
}

/** `data` of a {@link SnapshotFrame}: an event-shaped envelope around the run snapshot. */
export interface StateSnapshotEvent {
  readonly eventId: string;
  readonly runId: string;
  readonly type: 'state.snapshot';
  readonly payload: RunSnapshotBody;
  readonly timestamp: string;
  readonly sequence: number;
}

/** A `messages` mode frame: one streamed chunk of an agent's output (an `output.chunk` payload). */
export interface MessageChunkFrame {
  readonly type: 'ai.message.chunk';
  readonly id?: number;
  readonly event: string;
  readonly data: MessageChunk;
}

/** `data` of a {@link MessageChunkFrame}: the `output.chunk` payload with its run and node. */
export type MessageChunk = OutputChunkPayload & { readonly runId: string; readonly nodeId: string };

/**
 * A frame this SDK cannot classify: an event type newer than its schemas (readers must not fail on
 * those, `run-event.schema.json`), or data that is not JSON. `data` is what arrived.
 */
export interface UnknownFrame {
  readonly type: 'unknown';
  readonly id?: number;
  readonly event: string;
  readonly data: unknown;
}

/**
 * What {@link OpenWopClient.streamEvents} yields: a union discriminated by `type`, so
 * `if (frame.type === 'interrupt.requested')` narrows `frame.data.payload` to its schema's type.
 */
export type RunStreamEvent = RunEventFrame | SnapshotFrame | MessageChunkFrame | UnknownFrame;

export interface StreamEventsOptions {
  /** Resume after this sequence (sent as `Last-Event-ID`). */
  readonly after?: number | undefined;
  /** `updates` (default), `values`, `messages`, `debug`, or a comma-separated mix. */
  readonly streamMode?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Reconnections allowed in a row without receiving an event; 10 by default. */
  readonly maxReconnects?: number | undefined;
  /** Wait before a reconnection (doubles per failed attempt, capped at 5 s); 250 ms by default. */
  readonly reconnectDelayMs?: number | undefined;
  /**
   * Ask the host to batch frames over this window (1..5000 ms; `?bufferMs=`): fewer, larger
   * writes. The batches are unpacked here, so the iteration yields the same frames either way.
   */
  readonly bufferMs?: number | undefined;
}

/** Options of {@link OpenWopClient.waitForStatus} and {@link OpenWopClient.waitForInterrupt}. */
export interface WaitOptions {
  /** Give up after this long with {@link OpenWopTimeoutError}; 60 000 ms by default. */
  readonly timeoutMs?: number | undefined;
  /** Stop waiting: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/** What {@link OpenWopClient.waitForInterrupt} matches; any pending interrupt of the run when empty. */
export interface WaitForInterruptOptions<K extends InterruptKind = InterruptKind> extends WaitOptions {
  readonly nodeId?: string | undefined;
  readonly kind?: K | undefined;
}

/** An interrupt kind (`suspend-request.schema.json` `properties.kind`). */
export type InterruptKind = InterruptPayload['kind'];

/** The `data` of an interrupt of each kind (`suspend-request.schema.json` `$defs`). */
export interface InterruptDataByKind {
  approval: ApprovalData;
  clarification: ClarificationData;
  'external-event': ExternalEventData;
  custom: CustomData;
  'conversation.start': ConversationStartData;
  'conversation.exchange': ConversationExchangeData;
  'conversation.close': ConversationCloseData;
  'low-confidence': LowConfidenceData;
}

/**
 * A pending interrupt as {@link OpenWopClient.waitForInterrupt} returns it: one row of
 * `GET /v1/interrupts`, its `data` typed by `kind`.
 */
export type PendingInterruptOf<K extends InterruptKind = InterruptKind> = {
  [X in K]: Omit<InterruptSummary, 'kind' | 'data'> & {
    readonly kind: X;
    readonly data: InterruptDataByKind[X];
  };
}[K];
