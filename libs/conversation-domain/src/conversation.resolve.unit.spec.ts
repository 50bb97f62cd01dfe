import { MAX_TURN_TS_MS } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { isConversationResolve, parseConversationResolve } from './conversation.resolve';

/** The `details.errors` of the validation error a value is refused with. */
function refusal(value: Record<string, unknown>): { path: string; message: string }[] {
  try {
    parseConversationResolve(value);
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe('validation_error');
    expect((e as DomainError).message).toBe('invalid ConversationResolve');
    return (e as DomainError).details!.errors as { path: string; message: string }[];
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}
const paths = (value: Record<string, unknown>) => refusal(value).map((e) => e.path);

describe('isConversationResolve', () => {
  it('is true for an object naming an operation, whatever its value', () => {
    expect(isConversationResolve({ operation: 'exchange' })).toBe(true);
    expect(isConversationResolve({ operation: undefined })).toBe(true);
    expect(isConversationResolve({ operation: 'nonsense', turn: 1 })).toBe(true);
  });

  it('is false for plain answers: objects without operation, arrays, null, scalars', () => {
    expect(
      [{ answer: 'yes' }, [{ operation: 'close' }], null, undefined, 'close', 42, true].map(
        isConversationResolve,
      ),
    ).toEqual([false, false, false, false, false, false, false]);
  });
});

describe('parseConversationResolve: exchange', () => {
  it("defaults from and role to 'user' and content to null", () => {
    expect(parseConversationResolve({ operation: 'exchange', turn: { messageId: 'm1' } })).toEqual({
      operation: 'exchange',
      turn: { messageId: 'm1', from: 'user', role: 'user', content: null },
    });
  });

  it('keeps every given field of the turn and drops unknown ones', () => {
    const agent = { agentId: 'host:a', model: 'm' };
    expect(
      parseConversationResolve({
        operation: 'exchange',
        reason: 'ignored on exchange',
        turn: {
          messageId: 'm2',
          from: 'host:a',
          role: 'agent',
          content: { text: 'hi' },
          speakerId: 'host:a',
          to: 'host:b',
          groupId: 'g1',
          ts: 1_700_000_000_000,
          turnIndex: 0,
          agent,
          extra: 'dropped',
        },
      }),
    ).toEqual({
      operation: 'exchange',
      turn: {
        messageId: 'm2',
        from: 'host:a',
        role: 'agent',
        content: { text: 'hi' },
        speakerId: 'host:a',
        to: 'host:b',
        groupId: 'g1',
        ts: 1_700_000_000_000,
        turnIndex: 0,
        agent,
      },
    });
  });

  it('keeps falsy content as given (empty string, 0, false)', () => {
    for (const content of ['', 0, false]) {
      const parsed = parseConversationResolve({ operation: 'exchange', turn: { messageId: 'm', content } });
      expect(parsed.turn!.content).toBe(content);
    }
  });

  it('accepts a system turn', () => {
    const parsed = parseConversationResolve({
      operation: 'exchange',
      turn: { messageId: 'm', role: 'system' },
    });
    expect(parsed.turn!.role).toBe('system');
  });

  it('ignores an agent reference that is not an object', () => {
    const parsed = parseConversationResolve({
      operation: 'exchange',
      turn: { messageId: 'm', agent: 'host:a' },
    });
    expect(parsed.turn).not.toHaveProperty('agent');
  });

  it('refuses an exchange without a turn (/turn)', () => {
    expect(refusal({ operation: 'exchange' })).toEqual([
      { path: '/turn', message: 'is required for exchange' },
    ]);
  });
});

describe('parseConversationResolve: close', () => {
  it('needs only the operation', () => {
    expect(parseConversationResolve({ operation: 'close' })).toEqual({ operation: 'close' });
  });

  it('keeps the outcome (even null), the reason and a closing turn', () => {
    expect(
      parseConversationResolve({
        operation: 'close',
        outcome: null,
        reason: 'done',
        turn: { messageId: 'bye', content: 'Bye' },
      }),
    ).toEqual({
      operation: 'close',
      outcome: null,
      reason: 'done',
      turn: { messageId: 'bye', from: 'user', role: 'user', content: 'Bye' },
    });
    expect(parseConversationResolve({ operation: 'close', outcome: { score: 3 } })).toEqual({
      operation: 'close',
      outcome: { score: 3 },
    });
  });
});

describe('parseConversationResolve: refusals name each bad field by JSON pointer', () => {
  it('/operation: missing or not exchange/close', () => {
    expect(refusal({})).toEqual([{ path: '/operation', message: "must be 'exchange' or 'close'" }]);
    expect(paths({ operation: 'EXCHANGE', turn: { messageId: 'm' } })).toEqual(['/operation']);
    expect(paths({ operation: 1 })).toEqual(['/operation']);
  });

  it('/turn: must be an object (not null, an array or a string)', () => {
    for (const turn of [null, [], 'hi', 3]) {
      expect(refusal({ operation: 'exchange', turn })).toEqual([
        { path: '/turn', message: 'must be an object' },
      ]);
    }
    expect(paths({ operation: 'close', turn: 'bye' })).toEqual(['/turn']);
  });

  it('/turn/messageId: required, and a string of 1..512 characters', () => {
    expect(refusal({ operation: 'exchange', turn: {} })).toEqual([
      { path: '/turn/messageId', message: 'is required' },
    ]);
    for (const messageId of ['', 'x'.repeat(513), 7, null]) {
      expect(refusal({ operation: 'exchange', turn: { messageId } })).toEqual([
        { path: '/turn/messageId', message: 'must be a string of 1..512 characters' },
      ]);
    }
    expect(() =>
      parseConversationResolve({ operation: 'exchange', turn: { messageId: 'x'.repeat(512) } }),
    ).not.toThrow();
  });

  it.each(['from', 'speakerId', 'to', 'groupId'])(
    '/turn/%s: a string of 1..512 characters when given',
    (field) => {
      for (const bad of ['', 'y'.repeat(513), 5, {}]) {
        expect(refusal({ operation: 'exchange', turn: { messageId: 'm', [field]: bad } })).toEqual([
          { path: `/turn/${field}`, message: 'must be a string of 1..512 characters' },
        ]);
      }
    },
  );

  it('/turn/role: one of user, agent, system', () => {
    for (const role of ['assistant', '', 1, 'USER']) {
      expect(refusal({ operation: 'exchange', turn: { messageId: 'm', role } })).toEqual([
        { path: '/turn/role', message: 'must be one of user, agent, system' },
      ]);
    }
  });

  it('/turn/ts: an integer epoch-ms a bigint column and a date both hold', () => {
    for (const ts of [
      '1700000000000',
      Number.NaN,
      Number.POSITIVE_INFINITY,
      null,
      1e300,
      -1,
      1.5,
      MAX_TURN_TS_MS + 1,
    ]) {
      expect(refusal({ operation: 'exchange', turn: { messageId: 'm', ts } })).toEqual([
        { path: '/turn/ts', message: `must be an integer epoch-ms from 0 to ${MAX_TURN_TS_MS}` },
      ]);
    }
    expect(() =>
      parseConversationResolve({ operation: 'exchange', turn: { messageId: 'm', ts: MAX_TURN_TS_MS } }),
    ).not.toThrow();
  });

  it('/turn/turnIndex: a non-negative integer', () => {
    for (const turnIndex of [-1, 1.5, '2', null]) {
      expect(refusal({ operation: 'exchange', turn: { messageId: 'm', turnIndex } })).toEqual([
        { path: '/turn/turnIndex', message: 'must be a non-negative integer' },
      ]);
    }
  });

  it('/reason: a string', () => {
    expect(refusal({ operation: 'close', reason: 3 })).toEqual([
      { path: '/reason', message: 'must be a string' },
    ]);
    expect(paths({ operation: 'close', reason: null })).toEqual(['/reason']);
  });

  it('reports every bad field at once, in order', () => {
    expect(
      paths({
        operation: 'chat',
        reason: false,
        turn: { from: '', role: 'bot', speakerId: 1, to: '', groupId: [], ts: 'now', turnIndex: -2 },
      }),
    ).toEqual([
      '/operation',
      '/turn/messageId',
      '/turn/from',
      '/turn/role',
      '/turn/speakerId',
      '/turn/to',
      '/turn/groupId',
      '/turn/ts',
      '/turn/turnIndex',
      '/reason',
    ]);
  });
});
