import type { ConversationEvent } from './conversation.events';
import type { AgentRef, ConversationTurn, TurnSchema } from './conversation.types';

/** What an opened conversation holds, open or closed. */
interface Held {
  /** `${runId}:${nodeId}:${attempt}`. */
  readonly conversationId: string;
  readonly agentId?: string;
  /** RFC 0101 roster; absent ⇒ any speaker may emit agent turns. */
  readonly participants?: readonly AgentRef[];
  /** Every recorded turn; `turns[i].turnIndex === i`. */
  readonly turns: readonly ConversationTurn[];
  /** The index the next recorded turn gets (`turns.length`). */
  readonly nextTurnIndex: number;
  /** messageId → turnIndex of every recorded turn: the dedup index. */
  readonly seenMessageIds: ReadonlyMap<string, number>;
  readonly turnSchema?: TurnSchema;
  readonly openedAt: string;
  readonly deadlineAt?: string;
  readonly openedEventId: string;
  /** The causation of the next conversation event. */
  readonly lastEventId: string;
}

export interface NotOpenConversation {
  readonly status: 'not-open';
}

export interface OpenConversationState extends Held {
  readonly status: 'open';
}

export interface ClosedConversation extends Held {
  readonly status: 'closed';
  /** The node's resume value; `null` on timeout. */
  readonly outcome: unknown;
  /** `closed`, `timeout`, or the reason the closer gave. */
  readonly reason: string;
}

/** One conversation's state: a union of named states, never a bag of flags. */
export type ConversationState = NotOpenConversation | OpenConversationState | ClosedConversation;

export type ConversationStatus = ConversationState['status'];

export const initialConversationState = (): ConversationState => ({ status: 'not-open' });

function withTurn<T extends Held>(held: T, turn: ConversationTurn, eventId: string): T {
  return {
    ...held,
    turns: [...held.turns, turn],
    nextTurnIndex: turn.turnIndex + 1,
    seenMessageIds: new Map(held.seenMessageIds).set(turn.messageId, turn.turnIndex),
    lastEventId: eventId,
  };
}

/**
 * Folds one event into the state. An event only applies in order: `opened` to a conversation not
 * yet open, `exchanged`/`closed` to an open one and only at its next turn index. A redelivered or
 * stray event leaves the state unchanged, so folding a log with duplicates is the same as without.
 */
export function evolveConversation(state: ConversationState, event: ConversationEvent): ConversationState {
  if (event.type === 'conversation.opened') {
    if (state.status !== 'not-open') return state;
    const { payload, eventId, openedAt, deadlineAt } = event.data;
    const first = payload.initialTurn;
    return {
      status: 'open',
      conversationId: payload.conversationId,
      ...(payload.agentId !== undefined ? { agentId: payload.agentId } : {}),
      ...(payload.participants !== undefined ? { participants: payload.participants } : {}),
      turns: [first],
      nextTurnIndex: first.turnIndex + 1,
      seenMessageIds: new Map([[first.messageId, first.turnIndex]]),
      ...(payload.schema !== undefined ? { turnSchema: payload.schema } : {}),
      openedAt,
      ...(deadlineAt !== undefined ? { deadlineAt } : {}),
      openedEventId: eventId,
      lastEventId: eventId,
    };
  }
  if (state.status !== 'open' || event.data.payload.turnIndex !== state.nextTurnIndex) return state;
  switch (event.type) {
    case 'conversation.exchanged':
      return withTurn(state, event.data.payload.turn, event.data.eventId);
    case 'conversation.closed':
      return {
        ...withTurn(state, event.data.payload.finalTurn, event.data.eventId),
        status: 'closed',
        outcome: event.data.payload.outcome,
        reason: event.data.reason,
      };
    default:
      return state;
  }
}
