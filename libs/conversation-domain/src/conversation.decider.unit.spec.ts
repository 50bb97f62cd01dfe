import { conversationDecider } from './conversation.decider';
import { recordedTurn, transcriptOf } from './transcript';
import {
  agentTurn,
  CID,
  close,
  exchange,
  conversationSpec,
  history,
  LATER,
  LATER_MS,
  NOW,
  NOW_MS,
  openCommand,
  SUSPENDED_EVENT_ID,
  userTurn,
} from './conversation.given.spec';

// The shared given/when/then (libs/testing deciderSpec) over the conversation decider.
const { given } = conversationSpec;
const opened = () => history(openCommand());
const withTurns = (n: number) =>
  history(
    openCommand(),
    ...Array.from({ length: n }, (_, i) => exchange(userTurn(`t${i + 1}`, `m${i + 1}`))),
  );

describe('conversation decider: open (operation start)', () => {
  it('given nothing, when opened, then conversation.opened carries turn 0 and the id ${runId}:${nodeId}:${attempt}', () => {
    given()
      .when(openCommand())
      .then([
        {
          type: 'conversation.opened',
          data: {
            eventId: `${CID}#0`,
            causationId: SUSPENDED_EVENT_ID,
            openedAt: NOW,
            payload: {
              conversationId: CID,
              initialTurn: {
                messageId: `${CID}:0:user`,
                from: 'user',
                content: 'Should we launch in Q3?',
                ts: NOW_MS,
                role: 'user',
                turnIndex: 0,
              },
            },
          },
        },
      ]);
  });

  it('then the state is open at turn 1 with the initial turn in the transcript', () => {
    const next = given()
      .when(openCommand({ attempt: 2 }))
      .nextState();
    expect(next).toMatchObject({
      status: 'open',
      conversationId: 'r1:convo:2',
      nextTurnIndex: 1,
      openedEventId: 'r1:convo:2#0',
      lastEventId: 'r1:convo:2#0',
    });
    expect(transcriptOf(next).map((t) => t.turnIndex)).toEqual([0]);
  });

  it('causes conversation.opened by the node.suspended it follows (RFC 0005 §B)', () => {
    const [event] = given()
      .when(openCommand({ causationId: 'r1:41' }))
      .decided();
    expect(event!.data.causationId).toBe('r1:41');
  });

  it('uses the eventId a writer passes in', () => {
    const [event] = given()
      .when(openCommand({ eventId: 'r1:8' }))
      .decided();
    expect(event!.data.eventId).toBe('r1:8');
  });

  it('keeps the caller ts of the initial turn', () => {
    const [event] = given()
      .when(openCommand({ initialTurn: userTurn('hi', 'm0', { ts: 5 }) }))
      .decided();
    expect(event?.type === 'conversation.opened' && event.data.payload.initialTurn.ts).toBe(5);
  });

  it('without an initial turn, records a system turn 0', () => {
    const [event] = given()
      .when(openCommand({ initialTurn: undefined }))
      .decided();
    expect(event?.type === 'conversation.opened' && event.data.payload.initialTurn).toEqual({
      messageId: `${CID}:0:system`,
      from: 'system',
      content: { reason: 'opened' },
      ts: NOW_MS,
      role: 'system',
      turnIndex: 0,
    });
  });

  it('declares the turn schema and the driving agent on conversation.opened', () => {
    const schema = { type: 'string' };
    const [event] = given()
      .when(openCommand({ turnSchema: schema, agentId: 'core.chat' }))
      .decided();
    expect(event!.data.payload).toMatchObject({ schema, agentId: 'core.chat' });
  });

  it('derives deadlineAt from the open + timeoutMs (RFC 0005 §I)', () => {
    const next = given()
      .when(openCommand({ timeoutMs: 1500 }))
      .nextState();
    expect(next).toMatchObject({ deadlineAt: '2026-11-21T10:00:01.500Z', openedAt: NOW });
  });

  it('is idempotent: opening an existing conversation decides nothing', () => {
    given(opened()).when(openCommand()).thenNothingHappened();
    given(history(openCommand(), close())).when(openCommand()).thenNothingHappened();
  });

  it('refuses an initial turn whose turnIndex is not 0', () => {
    given()
      .when(openCommand({ initialTurn: userTurn('hi', 'm0', { turnIndex: 3 }) }))
      .thenThrows({ code: 'validation_error', details: { errors: [{ path: '/turnIndex' }] } });
  });

  it('refuses a turn schema that does not compile, and writes nothing', () => {
    given()
      .when(openCommand({ turnSchema: { type: 'no-such-type' } }))
      .thenThrows({ code: 'validation_error', details: { errors: [{ path: '/turnSchema' }] } });
  });

  it('does not check the initial turn against the turn schema: it is the prompt, not an answer', () => {
    const next = given()
      .when(openCommand({ turnSchema: { type: 'object' } }))
      .nextState();
    expect(next.status).toBe('open');
  });
});

describe('conversation decider: exchange', () => {
  it('given open, records the first exchanged turn at turnIndex 1, caused by conversation.opened', () => {
    given(opened())
      .when(exchange(userTurn('And Q4?', 'm1'), LATER))
      .then([
        {
          type: 'conversation.exchanged',
          data: {
            eventId: `${CID}#1`,
            causationId: `${CID}#0`,
            payload: {
              conversationId: CID,
              turnIndex: 1,
              turn: {
                messageId: 'm1',
                from: 'user',
                content: 'And Q4?',
                ts: LATER_MS,
                role: 'user',
                turnIndex: 1,
              },
            },
          },
        },
      ]);
  });

  it('chains each exchanged event to the one before it', () => {
    const [event] = given(withTurns(2))
      .when(exchange(userTurn('three', 'm3')))
      .decided();
    expect(event!.data).toMatchObject({
      eventId: `${CID}#3`,
      causationId: `${CID}#2`,
      payload: { turnIndex: 3 },
    });
  });

  it('chains to the writer-assigned id of the previous event', () => {
    const events = history(openCommand({ eventId: 'r1:8' }), {
      ...exchange(userTurn('a', 'm1')),
      eventId: 'r1:9',
    });
    expect(events.map((e) => [e.data.eventId, e.data.causationId])).toEqual([
      ['r1:8', SUSPENDED_EVENT_ID],
      ['r1:9', 'r1:8'],
    ]);
  });

  it('passes optional turn fields through and records missing content as null', () => {
    const [event] = given(opened())
      .when(exchange(userTurn(undefined, 'm1', { to: 'host:cfo', groupId: 'g1', ts: 42 })))
      .decided();
    expect(event?.type === 'conversation.exchanged' && event.data.payload.turn).toEqual({
      messageId: 'm1',
      from: 'user',
      content: null,
      ts: 42,
      role: 'user',
      turnIndex: 1,
      to: 'host:cfo',
      groupId: 'g1',
    });
  });

  it('accepts a caller turnIndex equal to the next index', () => {
    expect(
      given(opened())
        .when(exchange(userTurn('a', 'm1', { turnIndex: 1 })))
        .nextState(),
    ).toMatchObject({ nextTurnIndex: 2 });
  });

  it('refuses a caller turnIndex that skips or repeats one: turnIndex is gapless', () => {
    given(opened())
      .when(exchange(userTurn('a', 'm1', { turnIndex: 2 })))
      .thenThrows({
        code: 'validation_error',
        details: { expectedTurnIndex: 1, errors: [{ path: '/turnIndex' }] },
      });
    given(opened())
      .when(exchange(userTurn('a', 'm1', { turnIndex: 0 })))
      .thenThrows({ code: 'validation_error', details: { expectedTurnIndex: 1 } });
  });

  it('given no conversation, refuses with interrupt_not_found', () => {
    given()
      .when(exchange(userTurn('a', 'm1')))
      .thenThrows({ code: 'interrupt_not_found', details: { operation: 'exchange' } });
  });

  describe('messageId dedupe', () => {
    it('a retried messageId decides nothing and the original turn stands', () => {
      const g = given(withTurns(2));
      g.when(exchange(userTurn('t1', 'm1'))).thenNothingHappened();
      const next = g.when(exchange(userTurn('regenerated', 'm1', { ts: 99 }))).nextState();
      expect(recordedTurn(next, 'm1')).toMatchObject({ content: 't1', turnIndex: 1 });
      expect(next).toBe(g.state);
    });

    it('the initial turn is deduped too', () => {
      given(opened())
        .when(exchange(userTurn('Should we launch in Q3?', `${CID}:0:user`)))
        .thenNothingHappened();
    });

    it('the same messageId from another producer is a collision, refused', () => {
      given(withTurns(1))
        .when(exchange(agentTurn('host:cfo', 'mine', 'm1')))
        .thenThrows({
          code: 'validation_error',
          details: { messageId: 'm1', turnIndex: 1, errors: [{ path: '/messageId' }] },
        });
    });

    it('a retry of a turn recorded before the close is still answered with that turn after it', () => {
      given(history(openCommand(), exchange(userTurn('a', 'm1')), close()))
        .when(exchange(userTurn('a', 'm1')))
        .thenNothingHappened();
    });

    it("is safe for messageIds that name Object.prototype's members", () => {
      const next = given(opened())
        .when(exchange(userTurn('a', '__proto__')))
        .nextState();
      expect(next).toMatchObject({ nextTurnIndex: 2 });
      given(opened())
        .when(exchange(userTurn('a', 'constructor')))
        .decided();
    });
  });

  describe('turn schema (RFC 0005 §E)', () => {
    const schema = {
      type: 'object',
      required: ['answer'],
      properties: { answer: { type: 'string' } },
    };

    it('accepts content that matches the schema declared at open', () => {
      const next = given(history(openCommand({ turnSchema: schema })))
        .when(exchange(userTurn({ answer: 'Q4' }, 'm1')))
        .nextState();
      expect(next).toMatchObject({ nextTurnIndex: 2 });
    });

    it('refuses content that breaks it with validation_error pointing into content, writing nothing', () => {
      given(history(openCommand({ turnSchema: schema })))
        .when(exchange(userTurn({ answer: 4 }, 'm1')))
        .thenThrows({
          code: 'validation_error',
          details: {
            errors: [{ path: '/content/answer', message: 'must be string' }],
          },
        });
    });

    it('ignores a $schema naming another draft', () => {
      const next = given(
        history(
          openCommand({ turnSchema: { ...schema, $schema: 'http://json-schema.org/draft-07/schema#' } }),
        ),
      )
        .when(exchange(userTurn({ answer: 'x' }, 'm1')))
        .nextState();
      expect(next.status).toBe('open');
    });

    it('checks the closing turn too', () => {
      given(history(openCommand({ turnSchema: schema })))
        .when(close({ finalTurn: userTurn('no', 'm9') }))
        .thenThrows({ code: 'validation_error' });
    });
  });

  it('after close, an exchange is refused with validation_error (RFC 0005 §E)', () => {
    const error = given(history(openCommand(), close()))
      .when(exchange(userTurn('late', 'm9')))
      .thenThrows({
        code: 'validation_error',
        details: {
          conversationId: CID,
          operation: 'exchange',
          closedReason: 'closed',
        },
      });
    expect(error.name).toBe('DomainError');
  });
});

describe('conversation decider: close', () => {
  it('records the final turn at the next index, with the outcome, caused by the last event', () => {
    given(withTurns(2))
      .when(close({ finalTurn: userTurn('Go with Q4.', 'm3') }))
      .then([
        {
          type: 'conversation.closed',
          data: {
            eventId: `${CID}#3`,
            causationId: `${CID}#2`,
            reason: 'closed',
            payload: {
              conversationId: CID,
              turnIndex: 3,
              finalTurn: {
                messageId: 'm3',
                from: 'user',
                content: 'Go with Q4.',
                ts: LATER_MS,
                role: 'user',
                turnIndex: 3,
              },
              outcome: { decision: 'Q4' },
            },
          },
        },
      ]);
  });

  it('without a final turn, writes a system closing turn with the reason', () => {
    const [event] = given(withTurns(1))
      .when(close({ reason: 'agent-closed' }))
      .decided();
    expect(event!.data).toMatchObject({
      reason: 'agent-closed',
      payload: {
        turnIndex: 2,
        finalTurn: {
          messageId: `${CID}:2:system`,
          role: 'system',
          from: 'system',
          content: { reason: 'agent-closed' },
        },
      },
    });
  });

  it('records an absent outcome as null', () => {
    const [event] = given(opened())
      .when(close({ outcome: undefined }))
      .decided();
    expect(event!.data.payload).toMatchObject({ outcome: null });
  });

  it('then the state is closed with outcome and reason, and the final turn ends the transcript', () => {
    const next = given(withTurns(1))
      .when(close({ finalTurn: userTurn('bye', 'm2') }))
      .nextState();
    expect(next).toMatchObject({
      status: 'closed',
      outcome: { decision: 'Q4' },
      reason: 'closed',
      nextTurnIndex: 3,
    });
    expect(transcriptOf(next).map((t) => t.messageId)).toEqual([`${CID}:0:user`, 'm1', 'm2']);
  });

  it('refuses a final turn that reuses a recorded messageId', () => {
    given(withTurns(1))
      .when(close({ finalTurn: userTurn('t1', 'm1') }))
      .thenThrows({ code: 'validation_error', details: { messageId: 'm1' } });
  });

  it('a second close is a second resolve: interrupt_already_resolved (409)', () => {
    given(history(openCommand(), close()))
      .when(close({ outcome: 'again' }))
      .thenThrows({
        code: 'interrupt_already_resolved',
        details: { operation: 'close', closedReason: 'closed' },
      });
  });

  it('a retried close naming the same closing turn decides nothing', () => {
    given(history(openCommand(), close({ finalTurn: userTurn('bye', 'm9') })))
      .when(close({ finalTurn: userTurn('bye', 'm9') }))
      .thenNothingHappened();
  });

  it('a close naming an earlier turn after the close is refused', () => {
    given(history(openCommand(), exchange(userTurn('a', 'm1')), close()))
      .when(close({ finalTurn: userTurn('a', 'm1') }))
      .thenThrows({ code: 'interrupt_already_resolved' });
  });

  it('given no conversation, refuses with interrupt_not_found', () => {
    given()
      .when(close())
      .thenThrows({ code: 'interrupt_not_found', details: { operation: 'close' } });
  });
});

describe('conversation decider: expire (RFC 0005 §I)', () => {
  const expire = { type: 'ExpireConversation', now: LATER } as const;

  it('closes with outcome null and a system final turn naming the timeout', () => {
    given(history(openCommand({ timeoutMs: 60_000 }), exchange(userTurn('a', 'm1'))))
      .when(expire)
      .then([
        {
          type: 'conversation.closed',
          data: {
            eventId: `${CID}#2`,
            causationId: `${CID}#1`,
            reason: 'timeout',
            payload: {
              conversationId: CID,
              turnIndex: 2,
              finalTurn: {
                messageId: `${CID}:2:system`,
                from: 'system',
                content: { reason: 'timeout', deadlineAt: '2026-11-21T10:01:00.000Z' },
                ts: LATER_MS,
                role: 'system',
                turnIndex: 2,
              },
              outcome: null,
            },
          },
        },
      ]);
  });

  it('then the state is closed by timeout and takes no more turns', () => {
    const g = given(history(openCommand({ timeoutMs: 1 }), expire));
    expect(g.state).toMatchObject({ status: 'closed', reason: 'timeout', outcome: null });
    g.when(exchange(userTurn('late', 'm9'))).thenThrows({
      code: 'validation_error',
      details: { closedReason: 'timeout' },
    });
    g.when(close()).thenThrows({ code: 'interrupt_already_resolved', details: { closedReason: 'timeout' } });
  });

  it('is a stale timer, deciding nothing, for a closed, unopened or deadline-less conversation', () => {
    given(history(openCommand({ timeoutMs: 1 }), close()))
      .when(expire)
      .thenNothingHappened();
    given(history(openCommand({ timeoutMs: 1 }), expire))
      .when(expire)
      .thenNothingHappened();
    given().when(expire).thenNothingHappened();
    given(opened()).when(expire).thenNothingHappened();
  });

  it('never gives the system turn a messageId a caller already used', () => {
    const [event] = given(
      history(openCommand({ timeoutMs: 1 }), exchange(userTurn('x', `${CID}:2:system`, { role: 'system' }))),
    )
      .when(expire)
      .decided();
    expect(event?.type === 'conversation.closed' && event.data.payload.finalTurn.messageId).toBe(
      `${CID}:2:system:1`,
    );
  });
});

describe('conversation decider: evolve', () => {
  it('folds a redelivered event once: the log with duplicates is the log without', () => {
    const events = withTurns(2);
    const d = conversationDecider;
    const once = events.reduce((s, e) => d.evolve(s, e), d.initialState());
    const twice = [...events, ...events].reduce((s, e) => d.evolve(s, e), d.initialState());
    expect(twice).toEqual(once);
  });

  it('ignores exchanged/closed events before the open', () => {
    const [, exchanged] = withTurns(1);
    expect(conversationDecider.evolve(conversationDecider.initialState(), exchanged!)).toEqual({
      status: 'not-open',
    });
  });

  it('throws a plain Error, not a domain rejection, for a handler clock that is not ISO', () => {
    const decide = () =>
      given()
        .when(openCommand({ now: 'garbage' }))
        .decided();
    expect(decide).toThrow('now must be an ISO timestamp');
  });
});
