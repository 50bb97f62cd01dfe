import type { RecordedTurn, RunEventDoc, RunEventType } from '@openwop/contracts';

/** A conversation's lifecycle as the read model shows it (RFC 0005 §D). */
export type ConversationStatus = 'open' | 'closed';

/** `ConversationTurn` (`conversation-turn.schema.json`) as recorded on the run log. */
export type ProjectedTurn = RecordedTurn;

/** One row of the `conversations` read model, as folded from the run's conversation events. */
export interface ConversationView {
  readonly conversationId: string;
  readonly runId: string;
  readonly nodeId: string;
  readonly status: ConversationStatus;
  /** RFC 0101 roster (`AgentRef[]`) from `conversation.opened`, when one was declared. */
  readonly participants?: readonly Readonly<Record<string, unknown>>[];
  /** Highest recorded `turnIndex` + 1 (turn indexes are gapless from 0). */
  readonly turnCount: number;
  readonly openedAt: string;
  readonly closedAt?: string;
  /** The `outcome` of `conversation.closed` (`null` on timeout, RFC 0005 §I). */
  readonly outcome?: unknown;
  /** Sequence of the last conversation event folded in. */
  readonly lastSequence: number;
}

/** What one conversation event changes: the conversation row and the turn it records, if any. */
export interface ConversationChange {
  readonly conversation: ConversationView;
  readonly turn?: ProjectedTurn;
}

/** Event types the conversation projection reacts to. */
export const CONVERSATION_EVENTS: readonly RunEventType[] = [
  'conversation.opened',
  'conversation.exchanged',
  'conversation.closed',
];

/** Whether the conversation projection reacts to `type`. */
export function isConversationEvent(type: string): boolean {
  return (CONVERSATION_EVENTS as readonly string[]).includes(type);
}

/** The conversation an event belongs to, or `undefined` when it is not a conversation event. */
export function conversationIdOf(event: RunEventDoc): string | undefined {
  if (!isConversationEvent(event.type)) return undefined;
  const id = (event.payload as { conversationId?: unknown } | null)?.conversationId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Folds one conversation event into the conversation's row. Pure and deterministic (times come
 * from the event), so a rebuild from the log gives the same rows. A redelivered turn is harmless:
 * `turnCount` only grows and the turn insert is keyed by index and message id.
 * Returns `undefined` for events this projection ignores.
 */
export function evolveConversation(
  current: ConversationView | null,
  event: RunEventDoc,
): ConversationChange | undefined {
  const conversationId = conversationIdOf(event);
  if (conversationId === undefined) return undefined;
  const base: ConversationView = current ?? {
    conversationId,
    runId: event.runId,
    nodeId: event.nodeId ?? '',
    status: 'open',
    turnCount: 0,
    openedAt: event.timestamp,
    lastSequence: event.sequence,
  };
  const next = { ...base, lastSequence: Math.max(base.lastSequence, event.sequence) };
  switch (event.type) {
    case 'conversation.opened': {
      const p = event.payload as {
        participants?: readonly Record<string, unknown>[];
        initialTurn?: ProjectedTurn;
      };
      const turn = turnOf(p.initialTurn, 0);
      return {
        conversation: withTurn(
          {
            ...next,
            openedAt: current?.openedAt ?? event.timestamp,
            ...(p.participants ? { participants: p.participants } : {}),
          },
          turn,
        ),
        ...(turn ? { turn } : {}),
      };
    }
    case 'conversation.exchanged': {
      const p = event.payload as { turnIndex?: number; turn?: ProjectedTurn };
      const turn = turnOf(p.turn, p.turnIndex);
      return { conversation: withTurn(next, turn), ...(turn ? { turn } : {}) };
    }
    case 'conversation.closed': {
      const p = event.payload as { turnIndex?: number; finalTurn?: ProjectedTurn; outcome?: unknown };
      const turn = turnOf(p.finalTurn, p.turnIndex);
      const closed: ConversationView = {
        ...next,
        status: 'closed',
        closedAt: current?.closedAt ?? event.timestamp,
        outcome: p.outcome ?? null,
      };
      return { conversation: withTurn(closed, turn), ...(turn ? { turn } : {}) };
    }
    default:
      return undefined;
  }
}

/** The recorded turn, its index taken from the turn or else from the payload's `turnIndex`. */
function turnOf(
  turn: ProjectedTurn | undefined,
  fallbackIndex: number | undefined,
): ProjectedTurn | undefined {
  if (!turn || typeof turn !== 'object') return undefined;
  const turnIndex = Number.isInteger(turn.turnIndex) ? turn.turnIndex : fallbackIndex;
  if (turnIndex === undefined || !Number.isInteger(turnIndex)) return undefined;
  return { ...turn, turnIndex };
}

function withTurn(view: ConversationView, turn: ProjectedTurn | undefined): ConversationView {
  return turn ? { ...view, turnCount: Math.max(view.turnCount, turn.turnIndex + 1) } : view;
}
