import type { RunEventDoc } from '@openwop/contracts';

export interface ClientOptions {
  /** The host's base URL, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /** API key sent as `Authorization: Bearer`; token routes never send it. */
  readonly apiKey?: string;
  /** `fetch` to use (tests, proxies); the global one by default. */
  readonly fetch?: typeof fetch;
}

export interface CreateRunRequest {
  readonly workflowId: string;
  readonly inputs?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly tags?: string[];
  readonly callbackUrl?: string;
  readonly configurable?: Record<string, unknown>;
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
  readonly events: RunEventDoc[];
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
  readonly status?: string;
  readonly workflowId?: string;
  readonly limit?: number;
  readonly cursor?: string;
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
  readonly kind?: string;
  readonly runId?: string;
  readonly minAgeMs?: number;
  readonly maxAgeMs?: number;
  readonly limit?: number;
  readonly cursor?: string;
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

/** `GET /v1/interrupts/{token}`: what a token holder may see of the interrupt. */
export interface TokenInspection {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  readonly kind: string;
  readonly key: string;
  readonly data: unknown;
  readonly resumeSchema?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly requestedAt: string;
  readonly expiresAt: string;
  readonly intent: 'resolve' | 'inspect';
}

export interface ForkRunRequest {
  readonly mode: 'replay' | 'branch';
  readonly fromSeq?: number;
  readonly runOptionsOverlay?: Record<string, unknown>;
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

/** One frame of the SSE stream: `id` is the event sequence; `data` the parsed JSON (a `RunEventDoc`). */
export interface RunStreamEvent {
  readonly id?: number;
  readonly event: string;
  readonly data: unknown;
}

export interface StreamEventsOptions {
  /** Resume after this sequence (sent as `Last-Event-ID`). */
  readonly after?: number;
  /** `updates` (default), `values`, `messages`, `debug`, or a comma-separated mix. */
  readonly streamMode?: string;
  readonly signal?: AbortSignal;
  /** Reconnections allowed in a row without receiving an event; 10 by default. */
  readonly maxReconnects?: number;
  /** Wait before a reconnection (doubles per failed attempt, capped at 5 s); 250 ms by default. */
  readonly reconnectDelayMs?: number;
}
