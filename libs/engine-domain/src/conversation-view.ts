import type { RunEventDoc } from '@openwop/contracts';
import { ownValue } from '@openwop/kernel';
import type { ConversationTurn } from '@openwop/conversation-domain';

/** Turns an agent sees verbatim; older ones are summarised (issue: N = 10 by default). */
export const DEFAULT_WINDOW = 10;

/**
 * What the engine keeps of one conversation of the run: enough to drive its agents without reading
 * the transcript back (the interrupt service owns the turns, the projector the transcript). Bounded:
 * a 10,000-turn conversation costs the run record the same as a 10-turn one.
 */
export interface ConversationView {
  readonly conversationId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  readonly status: 'open' | 'closed';
  /** Turn 0 (the opening turn: the workflow's prompt), kept for the agents' context. */
  readonly first: ConversationTurn;
  /** The latest turns, oldest first, at most {@link DEFAULT_WINDOW} (turn 0 not repeated). */
  readonly window: readonly ConversationTurn[];
  /** Turns recorded after turn 0 that fell out of the window. */
  readonly older: number;
  /** Turns per speaker (`speakerId`, or `from` for user/system turns) that fell out of the window. */
  readonly olderBy: Readonly<Record<string, number>>;
  /** Agent turns recorded per speaker id. */
  readonly agentTurns: Readonly<Record<string, number>>;
  /** The content of each agent's latest turn (bounded by the roster): a council's answers. */
  readonly lastBySpeaker?: Readonly<Record<string, unknown>>;
  readonly nextTurnIndex: number;
  readonly participants?: readonly string[];
  readonly openedAt: string;
  /** Run-log id of the conversation's latest event: the causation of its next one (RFC 0005 §B). */
  readonly lastEventId: string;
}

type Conversations = Readonly<Record<string, ConversationView>>;

interface OpenedPayload {
  conversationId: string;
  participants?: { agentId: string }[];
  initialTurn: ConversationTurn;
}

/**
 * Folds a `conversation.*` run event into the run's views; anything else, or an event out of turn
 * order (a redelivery), leaves them as they are.
 */
export function evolveConversations(
  conversations: Conversations | undefined,
  event: RunEventDoc,
  interruptId: string | undefined,
): Conversations | undefined {
  const p = (event.payload ?? {}) as Record<string, unknown>;
  if (event.type === 'conversation.opened') {
    const opened = p as unknown as OpenedPayload;
    if (conversations?.[opened.conversationId]) return conversations;
    const view: ConversationView = {
      conversationId: opened.conversationId,
      nodeId: event.nodeId ?? '',
      interruptId: interruptId ?? '',
      status: 'open',
      first: opened.initialTurn,
      window: [],
      older: 0,
      olderBy: {},
      agentTurns: countAgent({}, opened.initialTurn),
      nextTurnIndex: opened.initialTurn.turnIndex + 1,
      ...(opened.participants ? { participants: opened.participants.map((x) => x.agentId) } : {}),
      openedAt: event.timestamp,
      lastEventId: event.eventId,
    };
    return { ...conversations, [view.conversationId]: view };
  }
  if (event.type !== 'conversation.exchanged' && event.type !== 'conversation.closed') return conversations;
  const id = String(p.conversationId);
  const view = conversations?.[id];
  if (!view || view.status !== 'open' || p.turnIndex !== view.nextTurnIndex) return conversations;
  const turn = (event.type === 'conversation.exchanged' ? p.turn : p.finalTurn) as ConversationTurn;
  const window = [...view.window, turn];
  const dropped = window.length > DEFAULT_WINDOW ? window.splice(0, window.length - DEFAULT_WINDOW) : [];
  const olderBy = { ...view.olderBy };
  for (const t of dropped) olderBy[speakerOf(t)] = (olderBy[speakerOf(t)] ?? 0) + 1;
  return {
    ...conversations,
    [id]: {
      ...view,
      status: event.type === 'conversation.closed' ? 'closed' : 'open',
      window,
      older: view.older + dropped.length,
      olderBy,
      agentTurns: countAgent(view.agentTurns, turn),
      ...(turn.role === 'agent'
        ? { lastBySpeaker: { ...view.lastBySpeaker, [speakerOf(turn)]: turn.content } }
        : {}),
      nextTurnIndex: turn.turnIndex + 1,
      lastEventId: event.eventId,
    },
  };
}

function countAgent(
  counts: Readonly<Record<string, number>>,
  turn: ConversationTurn,
): Record<string, number> {
  if (turn.role !== 'agent') return { ...counts };
  const who = speakerOf(turn);
  return { ...counts, [who]: (ownValue(counts, who) ?? 0) + 1 };
}

/** Who said a turn: the RFC 0101 speaker of an agent turn, else its `from`. */
export function speakerOf(turn: ConversationTurn): string {
  return turn.speakerId ?? turn.from;
}

/** The latest recorded turn (turn 0 before anyone spoke). */
export function lastTurnOf(view: ConversationView): ConversationTurn {
  return view.window[view.window.length - 1] ?? view.first;
}

/** One line on the turns an agent no longer sees verbatim, or undefined when it sees them all. */
export function olderSummary(view: ConversationView): string | undefined {
  if (view.older === 0) return undefined;
  const by = Object.entries(view.olderBy)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([who, n]) => `${who}: ${n}`)
    .join(', ');
  return `${view.older} earlier turn${view.older === 1 ? ' is' : 's are'} not shown (${by}).`;
}

/** A turn's content as prompt text. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  return JSON.stringify(content);
}
