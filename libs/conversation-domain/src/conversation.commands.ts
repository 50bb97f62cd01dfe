import type { AgentRef, TurnInput, TurnSchema } from './conversation.types';

/**
 * `operation: 'start'` (RFC 0005 §A): open the conversation of one node attempt. Idempotent: a
 * conversation that exists is never opened again.
 */
export interface OpenConversation {
  readonly type: 'OpenConversation';
  readonly runId: string;
  readonly nodeId: string;
  readonly attempt: number;
  /** The driving agent (`conversation.opened.agentId`), when there is one. */
  readonly agentId?: string;
  /** RFC 0101 roster: the closed set of agents allowed to speak. Absent ⇒ no membership rule. */
  readonly participants?: readonly AgentRef[];
  /** The host's `multiPartyConversation.maxParticipants`; `Infinity` when it advertises none. */
  readonly maxParticipants: number;
  /** JSON Schema every later caller turn's `content` must match (`conversation.opened.schema`). */
  readonly turnSchema?: TurnSchema;
  /** Turn 0. Absent ⇒ the host records a `system` turn `{ reason: 'opened' }`. */
  readonly initialTurn?: TurnInput;
  /** The whole conversation's budget, measured from this open (RFC 0005 §I). */
  readonly timeoutMs?: number;
  /** ISO timestamp from the handler's clock. */
  readonly now: string;
  /** The `eventId` of the `node.suspended` this conversation follows (RFC 0005 §B). */
  readonly causationId: string;
  /** The id to give `conversation.opened`; default {@link conversationEventId}. */
  readonly eventId?: string;
}

/** `operation: 'exchange'` (RFC 0005 §E): record one turn; the node stays suspended. */
export interface ExchangeTurn {
  readonly type: 'ExchangeTurn';
  readonly turn: TurnInput;
  readonly now: string;
  /** The id to give `conversation.exchanged`; default {@link conversationEventId}. */
  readonly eventId?: string;
}

/** `operation: 'close'` (RFC 0005 §E): end the conversation; the node resumes with `outcome`. */
export interface CloseConversation {
  readonly type: 'CloseConversation';
  /** Host-defined, opaque; `undefined` is recorded as `null`. */
  readonly outcome: unknown;
  /** The closing turn. Absent ⇒ the host records a `system` turn `{ reason }`. */
  readonly finalTurn?: TurnInput;
  /** Why it closed (`closed` by default; the free-talk driver's reasons, …); kept on the state. */
  readonly reason?: string;
  readonly now: string;
  /** The id to give `conversation.closed`; default {@link conversationEventId}. */
  readonly eventId?: string;
}

/** The durable timer reached the conversation's deadline (RFC 0005 §I). */
export interface ExpireConversation {
  readonly type: 'ExpireConversation';
  readonly now: string;
  /** The id to give `conversation.closed`; default {@link conversationEventId}. */
  readonly eventId?: string;
}

export type ConversationCommand = OpenConversation | ExchangeTurn | CloseConversation | ExpireConversation;
