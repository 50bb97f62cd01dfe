import type { ConversationState } from './conversation.state';
import type { ConversationTurn } from './conversation.types';

/** Every recorded turn in `turnIndex` order (empty before the open); the shared transcript. */
export function transcriptOf(state: ConversationState): readonly ConversationTurn[] {
  return state.status === 'not-open' ? [] : state.turns;
}

/**
 * The recorded turn with this messageId. After an exchange or a close, this is what the caller
 * gets back: the new turn, or the original one when its messageId was a retry (no event).
 */
export function recordedTurn(state: ConversationState, messageId: string): ConversationTurn | undefined {
  if (state.status === 'not-open') return undefined;
  const index = state.seenMessageIds.get(messageId);
  return index === undefined ? undefined : state.turns[index];
}
