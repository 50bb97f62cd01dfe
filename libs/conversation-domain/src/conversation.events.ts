import type { RunEventType } from '@openwop/contracts';
import type { Message } from '@openwop/kernel';
import type {
  ConversationClosedPayload,
  ConversationExchangedPayload,
  ConversationOpenedPayload,
} from './conversation.types';

/** The three RFC 0005 §B run event types. */
export type ConversationEventType = Extract<RunEventType, `conversation.${string}`>;

/**
 * Identity and causation of a conversation event. `conversation.opened` is caused by the
 * `node.suspended` it follows; every later event by the conversation event before it.
 */
export interface ConversationEventMeta {
  readonly eventId: string;
  readonly causationId: string;
}

export type ConversationOpened = Message<
  'conversation.opened',
  ConversationEventMeta & {
    /** The run event payload, exactly as `conversation-event.schema.json` (+ RFC 0101) has it. */
    readonly payload: ConversationOpenedPayload;
    readonly openedAt: string;
    /** `openedAt + timeoutMs`; absent when the conversation never times out. */
    readonly deadlineAt?: string;
  }
>;

export type ConversationExchanged = Message<
  'conversation.exchanged',
  ConversationEventMeta & { readonly payload: ConversationExchangedPayload }
>;

export type ConversationClosedEvent = Message<
  'conversation.closed',
  ConversationEventMeta & {
    readonly payload: ConversationClosedPayload;
    /** `closed`, `timeout`, or the caller's reason (not on the wire payload, which is closed). */
    readonly reason: string;
  }
>;

export type ConversationEvent = ConversationOpened | ConversationExchanged | ConversationClosedEvent;

/** The close reason of a conversation that reached its deadline. */
export const TIMEOUT_REASON = 'timeout';
/** The close reason of a `close` that named none. */
export const DEFAULT_CLOSE_REASON = 'closed';
