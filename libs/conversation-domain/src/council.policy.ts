import type { ConversationState } from './conversation.state';
import type { ConversationTurn } from './conversation.types';

/** Where a council (N roster agents answering one prompt over a shared transcript) stands. */
export interface CouncilRound {
  /** The latest non-agent turn: the prompt the council is answering. */
  readonly prompt?: ConversationTurn;
  /** Roster members with an agent turn after the prompt, in roster order. */
  readonly answered: readonly string[];
  /** Roster members still to answer, in roster order; empty once the round is complete or closed. */
  readonly pending: readonly string[];
}

/**
 * The council round of a conversation with a roster. Turn-taking is host policy (RFC 0101
 * §"Non-normative product policy"); this host's council asks members in roster order, each seeing
 * the transcript so far, including the answers of the members before it.
 */
export function councilRound(state: ConversationState): CouncilRound {
  if (state.status === 'not-open' || !state.participants) return { answered: [], pending: [] };
  let start = state.turns.length;
  while (start > 0 && state.turns[start - 1]?.role === 'agent') start--;
  const prompt = start > 0 ? state.turns[start - 1] : undefined;
  const spoke = new Set(state.turns.slice(start).map((t) => t.speakerId));
  const order = state.participants.map((p) => p.agentId);
  return {
    ...(prompt ? { prompt } : {}),
    answered: order.filter((id) => spoke.has(id)),
    pending: state.status === 'open' ? order.filter((id) => !spoke.has(id)) : [],
  };
}

/** Who still answers the current prompt, in roster order; the first one speaks next. */
export function speakerOrder(state: ConversationState): readonly string[] {
  return councilRound(state).pending;
}
