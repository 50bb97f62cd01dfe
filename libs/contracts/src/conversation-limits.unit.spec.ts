import { conversationLimits, DEFAULT_MAX_CONVERSATION_PARTICIPANTS } from './conversation-limits';

describe('conversationLimits', () => {
  it('defaults to 8 participants when unset or blank', () => {
    const on = { conversationPrimitive: true, multiParty: true };
    expect(conversationLimits({})).toEqual({ maxParticipants: DEFAULT_MAX_CONVERSATION_PARTICIPANTS, ...on });
    expect(conversationLimits({ MAX_CONVERSATION_PARTICIPANTS: ' ' })).toEqual({ maxParticipants: 8, ...on });
  });

  it('reads MAX_CONVERSATION_PARTICIPANTS', () => {
    expect(conversationLimits({ MAX_CONVERSATION_PARTICIPANTS: '32' })).toMatchObject({
      maxParticipants: 32,
    });
  });

  it('turns conversations or rosters off with OPENWOP_CONVERSATIONS / OPENWOP_MULTI_PARTY = off|false|0|no', () => {
    expect(conversationLimits({ OPENWOP_CONVERSATIONS: 'off' })).toMatchObject({
      conversationPrimitive: false,
      multiParty: true,
    });
    expect(conversationLimits({ OPENWOP_MULTI_PARTY: 'FALSE' })).toMatchObject({
      conversationPrimitive: true,
      multiParty: false,
    });
    expect(conversationLimits({ OPENWOP_CONVERSATIONS: 'on' })).toMatchObject({
      conversationPrimitive: true,
    });
  });

  it.each([['1'], ['0'], ['-3'], ['2.5'], ['many']])('refuses %j', (value) => {
    expect(() => conversationLimits({ MAX_CONVERSATION_PARTICIPANTS: value })).toThrow(
      /MAX_CONVERSATION_PARTICIPANTS/,
    );
  });
});
