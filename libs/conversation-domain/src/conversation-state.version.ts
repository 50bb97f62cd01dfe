import { stamp, upcast, type VersionedShape } from '@openwop/kernel';
import type { StoredConversation } from './conversation.coordination';

/**
 * The stored shape of a conversation aggregate (`interrupt_conversations.state`, the bounded form
 * {@link StoredConversation}; ADR 0031). Version 0 is the unversioned document of the releases before
 * versions; version 1 is the same shape, tagged. Turn rows are wire turns
 * (`conversation-turn.schema.json`), versioned by the spec.
 */
export const CONVERSATION_STATE_SHAPE: VersionedShape<StoredConversation> = {
  name: 'conversation state',
  current: 1,
  oldestReadable: 0,
  steps: { 0: (doc) => doc },
};

/** The document a conversation's bounded state is stored as, stamped with the current version. */
export function conversationDocument(
  stored: StoredConversation,
): StoredConversation & { readonly schemaVersion: number } {
  return stamp(CONVERSATION_STATE_SHAPE, stored);
}

/**
 * A stored conversation document as today's {@link StoredConversation}, upcast from any readable
 * version. The one way `interrupt_conversations.state` is read.
 *
 * @throws UnreadableSchemaVersion (`@openwop/kernel`) for a version this build does not read.
 */
export function conversationFromDocument(doc: object): StoredConversation {
  return upcast(CONVERSATION_STATE_SHAPE, doc);
}
