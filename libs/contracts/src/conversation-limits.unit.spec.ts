import { conversationLimits, DEFAULT_MAX_CONVERSATION_PARTICIPANTS } from './conversation-limits';

describe('conversationLimits', () => {
  it('defaults to 8 participants when unset or blank', () => {
    expect(conversationLimits({})).toEqual({ maxParticipants: DEFAULT_MAX_CONVERSATION_PARTICIPANTS });
    expect(conversationLimits({ MAX_CONVERSATION_PARTICIPANTS: ' ' })).toEqual({ maxParticipants: 8 });
  });

  it('reads MAX_CONVERSATION_PARTICIPANTS', () => {
    expect(conversationLimits({ MAX_CONVERSATION_PARTICIPANTS: '32' })).toEqual({ maxParticipants: 32 });
  });

  it.each([['1'], ['0'], ['-3'], ['2.5'], ['many']])('refuses %j', (value) => {
    expect(() => conversationLimits({ MAX_CONVERSATION_PARTICIPANTS: value })).toThrow(/MAX_CONVERSATION_PARTICIPANTS/);
  });
});
