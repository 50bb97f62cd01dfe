import { UnreadableSchemaVersion } from '@openwop/kernel';
import { storedConversationOf, type HeldConversation } from './conversation.coordination';
import {
  CONVERSATION_STATE_SHAPE,
  conversationDocument,
  conversationFromDocument,
} from './conversation-state.version';
import { decideConversation } from './conversation.decider';
import { evolveConversation, initialConversationState } from './conversation.state';
import { openCommand } from './conversation.given.spec';

/** An open conversation's bounded state as the previous release stored it: no `schemaVersion`. */
function v0Document(): Record<string, unknown> {
  const state = decideConversation(openCommand(), initialConversationState()).reduce(
    evolveConversation,
    initialConversationState(),
  );
  return JSON.parse(JSON.stringify(storedConversationOf(state as HeldConversation))) as Record<
    string,
    unknown
  >;
}

describe('conversation state versions (ADR 0031)', () => {
  it('writes version 1, and reads it back as the stored state it was', () => {
    const v0 = v0Document();
    const doc = JSON.parse(JSON.stringify(conversationDocument(v0 as never))) as Record<string, unknown>;
    expect(CONVERSATION_STATE_SHAPE.current).toBe(1);
    expect(doc['schemaVersion']).toBe(1);
    expect(conversationFromDocument(doc)).toEqual(v0);
  });

  it("reads an unversioned (version 0) document as today's stored state", () => {
    const v0 = v0Document();
    expect(conversationFromDocument(v0)).toEqual(v0);
  });

  it('refuses a version written by a later release', () => {
    expect(() => conversationFromDocument({ ...v0Document(), schemaVersion: 9 })).toThrow(
      UnreadableSchemaVersion,
    );
  });
});
