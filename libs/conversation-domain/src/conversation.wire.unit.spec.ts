import { assertRunEvent, RUN_EVENT_TYPES } from '@openwop/contracts';
import type { ConversationEvent } from './conversation.events';
import {
  agentTurn,
  close,
  COUNCIL,
  exchange,
  expectWireValid,
  history,
  LATER,
  openCommand,
  userTurn,
  validateEventPayload,
  validateRawEventPayload,
  validateTurn,
} from './conversation.given.spec';

const councilLog = (): ConversationEvent[] =>
  history(
    openCommand({ participants: COUNCIL, timeoutMs: 60_000, turnSchema: { type: 'string' } }),
    exchange(agentTurn('host:cfo', 'Q4, for runway.', 'm1')),
    exchange(agentTurn('host:cto', 'Q3 is feasible.', 'm2')),
    exchange(userTurn('Decide.', 'm3')),
    close({ finalTurn: agentTurn('host:coo', 'Q4.', 'm4') }),
  );

describe('conversation events on the wire', () => {
  it('every payload validates against conversation-event.schema.json (+ RFC 0101) and every turn against conversation-turn.schema.json', () => {
    const events = councilLog();
    expect(events.map((e) => e.type)).toEqual([
      'conversation.opened',
      'conversation.exchanged',
      'conversation.exchanged',
      'conversation.exchanged',
      'conversation.closed',
    ]);
    events.forEach(expectWireValid);
  });

  it('a timed-out close (outcome null, system final turn) is wire-valid', () => {
    const events = history(openCommand({ timeoutMs: 5 }), { type: 'ExpireConversation', now: LATER });
    events.forEach(expectWireValid);
    expect(events[1]!.data.payload).toMatchObject({ outcome: null, finalTurn: { role: 'system' } });
  });

  it('wraps into RunEventDocs that pass the run-event schema, with the causation chain', () => {
    const events = councilLog();
    events.forEach((event, i) => {
      expect(RUN_EVENT_TYPES).toContain(event.type);
      expect(() =>
        assertRunEvent({
          eventId: event.data.eventId,
          runId: 'r1',
          nodeId: 'convo',
          type: event.type,
          payload: event.data.payload,
          timestamp: LATER,
          sequence: 8 + i,
          causationId: event.data.causationId,
        }),
      ).not.toThrow();
      if (i > 0) expect(event.data.causationId).toBe(events[i - 1]!.data.eventId);
    });
  });

  it('the published schema predates RFC 0101: it refuses participants, which is why specs apply the RFC diff', () => {
    const [opened] = councilLog();
    expect(validateRawEventPayload(opened!.data.payload)).toBe(false);
    expect(validateEventPayload(opened!.data.payload)).toBe(true);
    const { participants: _p, ...legacy } = opened!.data.payload as unknown as Record<string, unknown>;
    expect(validateRawEventPayload(legacy)).toBe(true);
  });

  it('conversation-turn.schema.json refuses an agent turn without speakerId: the domain never emits one', () => {
    expect(validateTurn({ messageId: 'm', from: 'a', content: 1, ts: 0, role: 'agent', turnIndex: 1 })).toBe(
      false,
    );
    expect(
      validateTurn({
        messageId: 'm',
        from: 'a',
        content: 1,
        ts: 0,
        role: 'agent',
        turnIndex: 1,
        speakerId: 'host:a',
      }),
    ).toBe(true);
  });

  it('the RFC 0101 participants diff refuses an item that is not an AgentRef', () => {
    const [opened] = councilLog();
    const payload = { ...(opened!.data.payload as object), participants: [{ agentId: 'x' }] };
    expect(validateEventPayload(payload)).toBe(false);
  });
});
