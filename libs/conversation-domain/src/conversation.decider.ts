import { assertNever, instantAfter, type Decider } from '@openwop/kernel';
import type {
  CloseConversation,
  ConversationCommand,
  ExchangeTurn,
  ExpireConversation,
  OpenConversation,
} from './conversation.commands';
import {
  ConversationClosed,
  ConversationNotFound,
  InvalidConversation,
  InvalidTurn,
  RosterExceeded,
} from './conversation.errors';
import {
  DEFAULT_CLOSE_REASON,
  TIMEOUT_REASON,
  type ConversationClosedEvent,
  type ConversationEvent,
} from './conversation.events';
import { conversationEventId, conversationIdOf, msOf } from './conversation.ids';
import {
  evolveConversation,
  initialConversationState,
  type ConversationState,
  type OpenConversationState,
} from './conversation.state';
import type { AgentRef, ConversationTurn } from './conversation.types';
import { compileTurnSchema } from './turn-schema.validator';
import { isRetry, recordTurn, systemTurn } from './turn.rules';

/**
 * Decides the events of one command on one conversation, or throws a {@link DomainError}
 * subclass and decides nothing. Pure: time and ids arrive in the command.
 */
export function decideConversation(
  command: ConversationCommand,
  state: ConversationState,
): ConversationEvent[] {
  switch (command.type) {
    case 'OpenConversation':
      return open(command, state);
    case 'ExchangeTurn':
      return exchange(command, state);
    case 'CloseConversation':
      return close(command, state);
    case 'ExpireConversation':
      return expire(command, state);
    default:
      return assertNever(command, 'conversation command');
  }
}

/** The conversation aggregate in the kernel's decider shape. */
export const conversationDecider: Decider<ConversationCommand, ConversationEvent, ConversationState> = {
  initialState: initialConversationState,
  decide: decideConversation,
  evolve: evolveConversation,
};

/** Idempotent: a conversation that exists is never opened again. */
function open(command: OpenConversation, state: ConversationState): ConversationEvent[] {
  if (state.status !== 'not-open') return [];
  const conversationId = conversationIdOf(command.runId, command.nodeId, command.attempt);
  const { participants, turnSchema, initialTurn, now } = command;
  if (participants) checkRoster(participants, command.maxParticipants);
  if (turnSchema) {
    const compiled = compileTurnSchema(turnSchema);
    if (typeof compiled === 'string') {
      throw new InvalidConversation('/turnSchema', `is not a usable JSON Schema (${compiled})`);
    }
  }
  const first = initialTurn
    ? recordTurn(initialTurn, 0, now, { conversationId, ...(participants ? { participants } : {}) })
    : systemTurn(conversationId, 0, now, { reason: 'opened' }, new Map());
  const deadlineAt = command.timeoutMs === undefined ? undefined : instantAfter(msOf(now), command.timeoutMs);
  return [
    {
      type: 'conversation.opened',
      data: {
        eventId: command.eventId ?? conversationEventId(conversationId, 0),
        causationId: command.causationId,
        payload: {
          conversationId,
          ...(command.agentId !== undefined ? { agentId: command.agentId } : {}),
          ...(participants ? { participants } : {}),
          initialTurn: first,
          ...(turnSchema ? { schema: turnSchema } : {}),
        },
        openedAt: now,
        ...(deadlineAt !== undefined ? { deadlineAt } : {}),
      },
    },
  ];
}

/** RFC 0101 §Spec 4 first (the conformance fixture's 422), then a roster that names someone twice. */
function checkRoster(participants: readonly AgentRef[], maxParticipants: number): void {
  if (participants.length > maxParticipants) throw new RosterExceeded(participants.length, maxParticipants);
  const seen = new Set<string>();
  participants.forEach((p, i) => {
    if (seen.has(p.agentId)) {
      throw new InvalidConversation(`/participants/${i}/agentId`, `names ${p.agentId} twice`);
    }
    seen.add(p.agentId);
  });
}

function exchange(command: ExchangeTurn, state: ConversationState): ConversationEvent[] {
  if (state.status === 'not-open') throw new ConversationNotFound('exchange');
  if (isRetry(command.turn, state.turns, state.seenMessageIds)) return [];
  if (state.status === 'closed') throw new ConversationClosed(state.conversationId, 'exchange', state.reason);
  const turnIndex = state.nextTurnIndex;
  const turn = recordTurn(command.turn, turnIndex, command.now, state);
  return [
    {
      type: 'conversation.exchanged',
      data: {
        eventId: command.eventId ?? conversationEventId(state.conversationId, turnIndex),
        causationId: state.lastEventId,
        payload: { conversationId: state.conversationId, turnIndex, turn },
      },
    },
  ];
}

function close(command: CloseConversation, state: ConversationState): ConversationEvent[] {
  if (state.status === 'not-open') throw new ConversationNotFound('close');
  const { finalTurn } = command;
  if (state.status === 'closed') {
    // A retried close names the same closing turn: it is answered, not refused.
    const closing = state.turns[state.turns.length - 1];
    if (
      finalTurn &&
      closing?.messageId === finalTurn.messageId &&
      isRetry(finalTurn, state.turns, state.seenMessageIds)
    ) {
      return [];
    }
    throw new ConversationClosed(state.conversationId, 'close', state.reason);
  }
  const reason = command.reason ?? DEFAULT_CLOSE_REASON;
  const turnIndex = state.nextTurnIndex;
  if (finalTurn && state.seenMessageIds.has(finalTurn.messageId)) {
    throw InvalidTurn.at('/messageId', `is already turn ${state.seenMessageIds.get(finalTurn.messageId)}`, {
      messageId: finalTurn.messageId,
    });
  }
  const turn = finalTurn
    ? recordTurn(finalTurn, turnIndex, command.now, state)
    : systemTurn(state.conversationId, turnIndex, command.now, { reason }, state.seenMessageIds);
  return [
    closed(state, turn, command.outcome === undefined ? null : command.outcome, reason, command.eventId),
  ];
}

/** RFC 0005 §I. A timer for a conversation that is not open, or has no deadline, is stale. */
function expire(command: ExpireConversation, state: ConversationState): ConversationEvent[] {
  if (state.status !== 'open' || state.deadlineAt === undefined) return [];
  const turn = systemTurn(
    state.conversationId,
    state.nextTurnIndex,
    command.now,
    { reason: TIMEOUT_REASON, deadlineAt: state.deadlineAt },
    state.seenMessageIds,
  );
  return [closed(state, turn, null, TIMEOUT_REASON, command.eventId)];
}

function closed(
  state: OpenConversationState,
  finalTurn: ConversationTurn,
  outcome: unknown,
  reason: string,
  eventId: string | undefined,
): ConversationClosedEvent {
  return {
    type: 'conversation.closed',
    data: {
      eventId: eventId ?? conversationEventId(state.conversationId, finalTurn.turnIndex),
      causationId: state.lastEventId,
      payload: { conversationId: state.conversationId, turnIndex: finalTurn.turnIndex, finalTurn, outcome },
      reason,
    },
  };
}
