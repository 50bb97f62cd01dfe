import { decideConversation } from './conversation.decider';
import { councilRound, speakerOrder } from './council.policy';
import { isEmptyReply, nextFreeTalkStep } from './free-talk.policy';
import { recordedTurn, transcriptOf } from './transcript';
import {
  agentTurn,
  CID,
  close,
  COUNCIL,
  exchange,
  fold,
  history,
  NOW,
  openCommand,
  roster,
  userTurn,
} from './conversation.given.spec';

const at = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

describe('transcriptOf / recordedTurn', () => {
  it('is empty before the open, then every turn in turnIndex order, closing turn included', () => {
    expect(transcriptOf(fold([]))).toEqual([]);
    const state = fold(
      history(openCommand(), exchange(userTurn('a', 'm1')), close({ finalTurn: userTurn('b', 'm2') })),
    );
    expect(transcriptOf(state).map((t) => [t.turnIndex, t.messageId])).toEqual([
      [0, `${CID}:0:user`],
      [1, 'm1'],
      [2, 'm2'],
    ]);
  });

  it('finds the turn a messageId names, for answering a retried exchange', () => {
    const state = fold(history(openCommand(), exchange(userTurn('a', 'm1'))));
    expect(recordedTurn(state, 'm1')).toMatchObject({ turnIndex: 1, content: 'a' });
    expect(recordedTurn(state, 'nope')).toBeUndefined();
    expect(recordedTurn(fold([]), 'm1')).toBeUndefined();
  });
});

describe('council: N agents answer one prompt in roster order over a shared transcript', () => {
  const opened = () => history(openCommand({ participants: COUNCIL }));

  it('asks every member in roster order for the opening prompt', () => {
    const state = fold(opened());
    expect(speakerOrder(state)).toEqual(['host:cfo', 'host:cto', 'host:coo']);
    expect(councilRound(state)).toMatchObject({ prompt: { turnIndex: 0, role: 'user' }, answered: [] });
  });

  it('moves to the next member as answers land, until the round is complete', () => {
    const answers = [
      exchange(agentTurn('host:cfo', 'Q4', 'a1')),
      exchange(agentTurn('host:cto', 'Q3', 'a2')),
      exchange(agentTurn('host:coo', 'Q4', 'a3')),
    ];
    expect(
      speakerOrder(fold(history(openCommand({ participants: COUNCIL }), ...answers.slice(0, 1)))),
    ).toEqual(['host:cto', 'host:coo']);
    expect(councilRound(fold(history(openCommand({ participants: COUNCIL }), ...answers)))).toMatchObject({
      answered: ['host:cfo', 'host:cto', 'host:coo'],
      pending: [],
    });
  });

  it('keeps roster order even when a member answers out of turn', () => {
    const state = fold(
      history(openCommand({ participants: COUNCIL }), exchange(agentTurn('host:coo', 'early', 'a1'))),
    );
    expect(councilRound(state)).toMatchObject({ answered: ['host:coo'], pending: ['host:cfo', 'host:cto'] });
  });

  it('starts a new round at the next user prompt', () => {
    const state = fold(
      history(
        openCommand({ participants: COUNCIL }),
        exchange(agentTurn('host:cfo', 'Q4', 'a1')),
        exchange(agentTurn('host:cto', 'Q3', 'a2')),
        exchange(agentTurn('host:coo', 'Q4', 'a3')),
        exchange(userTurn('And the budget?', 'u2')),
        exchange(agentTurn('host:cfo', '2M', 'a4')),
      ),
    );
    expect(councilRound(state)).toMatchObject({
      prompt: { messageId: 'u2', turnIndex: 4 },
      answered: ['host:cfo'],
      pending: ['host:cto', 'host:coo'],
    });
  });

  it('has nobody to ask without a roster, before the open, or once closed', () => {
    expect(speakerOrder(fold(history(openCommand())))).toEqual([]);
    expect(speakerOrder(fold([]))).toEqual([]);
    expect(speakerOrder(fold(history(openCommand({ participants: COUNCIL }), close())))).toEqual([]);
  });
});

describe('free talk: two agents with no turn order', () => {
  const pair = roster('host:alice', 'host:bob');
  const talk = (...turns: Parameters<typeof agentTurn>[]) =>
    fold(history(openCommand({ participants: pair }), ...turns.map((t) => exchange(agentTurn(...t)))));
  const limits = { ttl: 60_000, now: at(10) };

  it('before any reply, either agent may start (roster order)', () => {
    expect(nextFreeTalkStep(talk(), undefined, limits)).toEqual({
      action: 'continue',
      next: ['host:alice', 'host:bob'],
    });
  });

  it('after a reply, the other agent answers', () => {
    expect(nextFreeTalkStep(talk(), { speakerId: 'host:alice', content: 'Hi Bob' }, limits)).toEqual({
      action: 'continue',
      next: ['host:bob'],
    });
    expect(nextFreeTalkStep(talk(['host:bob', 'Hi', 'b1']), undefined, limits)).toEqual({
      action: 'continue',
      next: ['host:alice'],
    });
  });

  it('closes when an agent closes, even with an empty reply', () => {
    expect(nextFreeTalkStep(talk(), { speakerId: 'host:bob', content: '', closes: true }, limits)).toEqual({
      action: 'close',
      reason: 'agent-closed',
    });
  });

  it('closes on an empty reply', () => {
    for (const content of [null, undefined, '', '  \n', [], {}]) {
      expect(nextFreeTalkStep(talk(), { speakerId: 'host:bob', content }, limits)).toEqual({
        action: 'close',
        reason: 'empty-reply',
      });
    }
  });

  it('closes when the TTL, measured from the open, has run out', () => {
    const reply = { speakerId: 'host:bob', content: 'more' };
    expect(nextFreeTalkStep(talk(), reply, { ttl: 60_000, now: at(60) })).toEqual({
      action: 'close',
      reason: 'ttl',
    });
    expect(nextFreeTalkStep(talk(), reply, { ttl: 60_000, now: at(59.999) }).action).toBe('continue');
  });

  it('has nothing to drive once the conversation is closed or before it opens', () => {
    expect(
      nextFreeTalkStep(fold(history(openCommand({ participants: pair }), close())), undefined, limits),
    ).toEqual({
      action: 'ended',
    });
    expect(nextFreeTalkStep(fold([]), undefined, limits)).toEqual({ action: 'ended' });
  });

  it('counts 0 and false as answers', () => {
    expect([0, false, 'x', [1], { a: 1 }].map(isEmptyReply)).toEqual([false, false, false, false, false]);
  });

  it('runs a whole talk: the driver and the decider together end with agent-closed', () => {
    const replies = [
      { speakerId: 'host:alice', content: 'Shall we split the work?' },
      { speakerId: 'host:bob', content: 'Yes: I take the API.' },
      { speakerId: 'host:alice', content: 'Done, then.', closes: true },
    ];
    let events = history(openCommand({ participants: pair }));
    let closedBy: string | undefined;
    for (const [i, reply] of replies.entries()) {
      const step = nextFreeTalkStep(fold(events), reply, limits);
      const turn = agentTurn(reply.speakerId, reply.content, `ft${i}`);
      if (step.action === 'continue') {
        expect(step.next).not.toContain(reply.speakerId);
        events = [...events, ...decideConversation(exchange(turn), fold(events))];
      } else if (step.action === 'close') {
        closedBy = step.reason;
        events = [
          ...events,
          ...decideConversation(close({ finalTurn: turn, reason: step.reason, outcome: null }), fold(events)),
        ];
      }
    }
    expect(closedBy).toBe('agent-closed');
    const state = fold(events);
    expect(state).toMatchObject({ status: 'closed', reason: 'agent-closed' });
    expect(transcriptOf(state).map((t) => t.speakerId ?? t.role)).toEqual([
      'user',
      'host:alice',
      'host:bob',
      'host:alice',
    ]);
  });
});
