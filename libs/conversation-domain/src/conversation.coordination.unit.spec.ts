import { describe, expect, it } from '@jest/globals';
import {
  CONVERSATION_TAIL,
  closureOf,
  conversationAddressed,
  conversationOfStored,
  conversationResolveResult,
  converseCommand,
  digestOf,
  earlierTurnsSummary,
  lastRecordedTurn,
  silenceAuditCommand,
  silenceDueAt,
  silenceOfOpening,
  silentConversationOf,
  storedConversationOf,
  turnIdsToLoad,
  turnsSince,
  type HeldConversation,
} from './conversation.coordination';
import { decideConversation } from './conversation.decider';
import type { ConversationCommand } from './conversation.commands';
import {
  agentTurn,
  CID,
  close,
  exchange,
  fold,
  history,
  LATER,
  NOW,
  openCommand,
  userTurn,
} from './conversation.given.spec';

const HOME = { interruptId: 'r1:i1', runId: 'r1', nodeId: 'convo', tenant: 't1' };
const CAUSE = { id: 'cmd-1', correlationId: 'corr-1' };

/** An open conversation of `turns` turns: the opening user turn, then alternating agent and user turns. */
function talk(turns: number, ...more: ConversationCommand[]): ConversationCommand[] {
  const commands: ConversationCommand[] = [openCommand()];
  for (let i = 1; i < turns; i++)
    commands.push(exchange(i % 2 === 1 ? agentTurn('host:a', `a${i}`, `m${i}`) : userTurn(`u${i}`, `m${i}`)));
  return [...commands, ...more];
}

const held = (commands: ConversationCommand[]): HeldConversation => {
  const state = fold(history(...commands));
  if (state.status === 'not-open') throw new Error('not open');
  return state;
};

describe('conversation coordination (the interrupt service keeps only persistence)', () => {
  describe('addressing: which resolves reach the conversation', () => {
    const pending = { status: 'pending', interrupt: { runId: 'r1', nodeId: 'convo', tenant: 't1' } };
    const target = { runId: 'r1', nodeId: 'convo', tenant: 't1' };

    it('reaches it at its run, node and tenant, open or already resolved', () => {
      expect(conversationAddressed(pending, target)).toBe(true);
      expect(conversationAddressed({ ...pending, status: 'resolved' }, target)).toBe(true);
    });

    it("leaves the refusal to the interrupt: none, another run, node or tenant's, or cancelled with its run", () => {
      expect(conversationAddressed({ status: 'none' }, target)).toBe(false);
      expect(conversationAddressed(pending, { ...target, runId: 'r2' })).toBe(false);
      expect(conversationAddressed(pending, { ...target, nodeId: 'other' })).toBe(false);
      expect(conversationAddressed(pending, { ...target, tenant: 't2' })).toBe(false);
      expect(conversationAddressed({ ...pending, status: 'cancelled' }, target)).toBe(false);
    });
  });

  describe('the bounded stored form', () => {
    it(`keeps the last ${CONVERSATION_TAIL} turns and no turn list or dedup index`, () => {
      const stored = storedConversationOf(held(talk(15)));
      expect(stored.tail.map((t) => t.turnIndex)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
      expect(stored).not.toHaveProperty('turns');
      expect(stored).not.toHaveProperty('seenMessageIds');
      expect(stored.nextTurnIndex).toBe(15);
    });

    it('keeps the last agent turn when the tail holds none, across saves', () => {
      const commands = [openCommand(), exchange(agentTurn('host:a', 'early', 'm1'))];
      for (let i = 2; i < 14; i++) commands.push(exchange(userTurn(`u${i}`, `m${i}`)));
      const stored = storedConversationOf(held(commands));
      expect(stored.tail.some((t) => t.role === 'agent')).toBe(false);
      expect(stored.lastAgentTurn).toMatchObject({ turnIndex: 1, content: 'early' });
      // Loaded back from the tail alone, the agent turn is gone from the turns but rides on the state.
      const reloaded = conversationOfStored(stored, stored.tail) as HeldConversation;
      expect(storedConversationOf(reloaded).lastAgentTurn).toMatchObject({ turnIndex: 1 });
    });

    it('a loaded conversation decides the next turn, a retry and a close as the whole one does', () => {
      const full = held(talk(14));
      const stored = JSON.parse(JSON.stringify(storedConversationOf(full))) as ReturnType<
        typeof storedConversationOf
      >;
      const loaded = conversationOfStored(stored, stored.tail);
      for (const command of [
        exchange(userTurn('next', 'm-new')),
        exchange(agentTurn('host:a', 'a13', 'm13')), // a retry of a tail turn: no event
        close(),
        { type: 'ExpireConversation' as const, now: LATER },
      ]) {
        expect(decideConversation(command, loaded)).toEqual(decideConversation(command, full));
      }
    });

    it('looks up the named messageIds, the system id at the next index and its four fallbacks', () => {
      expect(turnIdsToLoad({ conversationId: CID, nextTurnIndex: 7 }, ['m1'])).toEqual([
        'm1',
        `${CID}:7:system`,
        `${CID}:7:system:1`,
        `${CID}:7:system:2`,
        `${CID}:7:system:3`,
        `${CID}:7:system:4`,
      ]);
    });

    it('a save inserts only the turns at or past the index it loaded at', () => {
      expect(turnsSince(held(talk(5)), 3).map((t) => t.turnIndex)).toEqual([3, 4]);
      const sparse = conversationOfStored(storedConversationOf(held(talk(14))), []) as HeldConversation;
      expect(turnsSince(sparse, 0)).toEqual([]);
    });
  });

  describe('the closure the node resumes with', () => {
    it('says how many earlier turns the tail leaves out', () => {
      expect(earlierTurnsSummary(0)).toBeUndefined();
      expect(earlierTurnsSummary(1)).toBe('1 earlier turn is not shown.');
      expect(earlierTurnsSummary(3)).toBe('3 earlier turns are not shown.');
    });

    it('a short talk: all its turns, no summary', () => {
      const digest = digestOf(held(talk(4)));
      expect(digest.turnCount).toBe(4);
      expect(digest.tail).toHaveLength(4);
      expect(digest).not.toHaveProperty('summary');
      expect(digest.lastAgentTurn).toMatchObject({ turnIndex: 3 });
    });

    it('a closed talk: operation, id, outcome, reason, count, last agent turn, tail and summary', () => {
      const closed = held(talk(12, close({ finalTurn: userTurn('done', 'm-final') })));
      if (closed.status !== 'closed') throw new Error('not closed');
      const closure = closureOf(closed);
      expect(closure).toMatchObject({
        operation: 'close',
        conversationId: CID,
        outcome: { decision: 'Q4' },
        reason: 'closed',
        turnCount: 13,
        lastAgentTurn: { turnIndex: 11 },
        summary: '3 earlier turns are not shown.',
      });
      expect((closure.tail as { turnIndex: number }[]).map((t) => t.turnIndex)).toEqual([
        3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
      ]);
    });

    it('a talk its deadline closed resumes with outcome null and reason timeout, without a last agent turn it never had', () => {
      const closed = held([openCommand({ timeoutMs: 60_000 }), { type: 'ExpireConversation', now: LATER }]);
      if (closed.status !== 'closed') throw new Error('not closed');
      const closure = closureOf(closed);
      expect(closure).toMatchObject({ outcome: null, reason: 'timeout', turnCount: 2 });
      expect(closure).not.toHaveProperty('lastAgentTurn');
      expect(closure).not.toHaveProperty('summary');
    });
  });

  describe('silence audits', () => {
    it('are due maxSilenceMs after the latest turn of an open conversation only', () => {
      const open = { ...held(talk(2)), ...silenceOfOpening({ maxSilenceMs: 60_000 }) };
      expect(silenceDueAt(open, NOW)).toBe('2026-11-21T10:01:00.000Z');
      expect(silenceDueAt(held(talk(2)), NOW)).toBeNull();
      const closed = { ...held(talk(2, close())), maxSilenceMs: 60_000 };
      expect(silenceDueAt(closed, NOW)).toBeNull();
    });

    it('take maxSilenceMs from the opening only when it is a number', () => {
      expect(silenceOfOpening({ maxSilenceMs: 5 })).toEqual({ maxSilenceMs: 5 });
      expect(silenceOfOpening({ maxSilenceMs: '5' })).toEqual({});
      expect(silenceOfOpening({})).toEqual({});
    });

    it('name the last turn, so one silence is audited once', () => {
      const silenced = { ...held(talk(3)), maxSilenceMs: 60_000 };
      const stored = storedConversationOf(silenced);
      const silent = silentConversationOf(HOME, stored);
      expect(silent).toEqual({ home: HOME, conversationId: CID, lastTurnIndex: 2, maxSilenceMs: 60_000 });
      expect(silentConversationOf(HOME, storedConversationOf(held(talk(3)))).maxSilenceMs).toBe(0);
      expect(silenceAuditCommand(silent, LATER)).toEqual({
        id: `silence:${CID}:2`,
        type: 'run.converse',
        occurredAt: LATER,
        correlationId: 'r1',
        causationId: `silence:${CID}`,
        actor: { tenant: 't1', principal: 'interrupt-service' },
        data: {
          runId: 'r1',
          nodeId: 'convo',
          interruptId: 'r1:i1',
          type: 'conversation.silence',
          payload: { conversationId: CID, silentSinceTurnIndex: 2, maxSilenceMs: 60_000, detectedAt: LATER },
        },
      });
    });
  });

  describe('records for the run log and answers', () => {
    const state = held(talk(2));

    it('a decided exchange becomes run.converse with an id from its event id', () => {
      const [event] = decideConversation(exchange(userTurn('hi', 'm9')), state);
      const command = converseCommand(event!, HOME, LATER, CAUSE);
      expect(command).toMatchObject({
        id: `converse:${event!.data.eventId}`,
        type: 'run.converse',
        causationId: 'cmd-1',
        correlationId: 'corr-1',
        actor: { tenant: 't1', principal: 'interrupt-service' },
        data: { runId: 'r1', nodeId: 'convo', interruptId: 'r1:i1', type: 'conversation.exchanged' },
      });
      expect(command.data).not.toHaveProperty('reason');
      expect(lastRecordedTurn([event!])).toMatchObject({ turnIndex: 2, messageId: 'm9' });
    });

    it('a close carries its reason and its final turn is the recorded one; the engine writes the opening itself', () => {
      const events = decideConversation(
        close({ reason: 'agreed', finalTurn: userTurn('bye', 'm-bye') }),
        state,
      );
      expect(converseCommand(events.at(-1)!, HOME, LATER, CAUSE).data).toMatchObject({
        type: 'conversation.closed',
        reason: 'agreed',
      });
      expect(lastRecordedTurn(events)).toMatchObject({ messageId: 'm-bye' });
      const opened = history(openCommand());
      expect(() => converseCommand(opened[0]!, HOME, NOW, CAUSE)).toThrow(
        /engine writes conversation.opened/,
      );
      expect(lastRecordedTurn([])).toBeUndefined();
    });

    it('answers resolved once closed, accepted while it goes on, with the turn when there is one', () => {
      const address = { runId: 'r1', nodeId: 'convo', interruptId: 'r1:i1' };
      const turn = state.turns[1]!;
      expect(conversationResolveResult(address, false, CID, turn)).toEqual({
        ...address,
        status: 'accepted',
        conversationId: CID,
        turnIndex: 1,
        messageId: 'm1',
      });
      expect(conversationResolveResult(address, true, CID, undefined)).toEqual({
        ...address,
        status: 'resolved',
        conversationId: CID,
      });
    });
  });
});
