import { approvalData, ctx, given, LATER, NOW, opened, resolveWith } from './interrupt.given.spec';
import { resumeDecisionOf, TIMEOUT_PRINCIPAL } from './resume-decision';
import type { OpenInterrupt } from './interrupt.commands';

const openCommand = (over: Partial<OpenInterrupt> = {}): OpenInterrupt => ({
  type: 'OpenInterrupt',
  interrupt: {
    interruptId: 'r1:gate:0',
    runId: 'r1',
    nodeId: 'gate',
    kind: 'custom',
    key: 'r1:gate:0',
    data: { customKind: 'x', payload: 1 },
    requestedAt: NOW,
  },
  runCancelled: false,
  context: ctx('engine'),
  ...over,
});

describe('interrupt decider: lifecycle', () => {
  describe('open', () => {
    it('given nothing, when opened, then the interrupt is pending under the command tenant', () => {
      const next = given().when(openCommand()).next();
      expect(next).toMatchObject({
        status: 'pending',
        interrupt: { interruptId: 'r1:gate:0', tenant: 't1', kind: 'custom' },
        notes: [],
      });
    });

    it('derives the deadline from requestedAt + timeoutMs', () => {
      const cmd = openCommand({ interrupt: { ...openCommand().interrupt, timeoutMs: 1500 } });
      expect(given().when(cmd).next()).toMatchObject({
        interrupt: { deadlineAt: '2026-11-21T10:00:01.500Z' },
      });
    });

    it.each([1e15, 1e300, Number.MAX_SAFE_INTEGER])(
      'holds a timeout of %s ms with a deadline every store takes (never past 9999-12-31): it never fires',
      (timeoutMs) => {
        const cmd = openCommand({ interrupt: { ...openCommand().interrupt, timeoutMs } });
        expect(given().when(cmd).next()).toMatchObject({
          status: 'pending',
          interrupt: { timeoutMs, deadlineAt: '9999-12-31T23:59:59.999Z' },
        });
      },
    );

    it('falls back to the handler clock when requestedAt is not a date', () => {
      const cmd = openCommand({
        interrupt: { ...openCommand().interrupt, requestedAt: 'garbage', timeoutMs: 1000 },
        context: ctx('engine', { now: LATER }),
      });
      expect(given().when(cmd).next()).toMatchObject({
        interrupt: { deadlineAt: '2026-11-21T10:05:01.000Z' },
      });
    });

    it('is idempotent by interruptId: opening an existing interrupt decides nothing', () => {
      given(opened('custom', {})).when(openCommand()).then([]);
    });

    it('opens an interrupt of a run cancelled before the open arrived as cancelled', () => {
      const next = given()
        .when(openCommand({ runCancelled: true }))
        .next();
      expect(next.status).toBe('cancelled');
    });
  });

  describe('resolve addressing', () => {
    it('given no interrupt, refuses with interrupt_not_found', () => {
      given().when(resolveWith(null)).thenRefuses('interrupt_not_found', { runId: 'r1', nodeId: 'gate' });
    });

    it('refuses another tenant with interrupt_not_found', () => {
      given(opened('custom', {}))
        .when(resolveWith(1, 'alice', { context: ctx('alice', { tenant: 't2' }) }))
        .thenRefuses('interrupt_not_found');
    });

    it('refuses a token whose interruptId names another interrupt', () => {
      given(opened('custom', {}))
        .when(resolveWith(1, 'alice', { interruptId: 'r1:gate:7' }))
        .thenRefuses('interrupt_not_found');
    });

    it('refuses a resolve addressed to another node', () => {
      given(opened('custom', {}))
        .when(resolveWith(1, 'alice', { nodeId: 'other' }))
        .thenRefuses('interrupt_not_found');
    });

    it('accepts a token whose interruptId matches', () => {
      expect(
        given(opened('custom', {}))
          .when(resolveWith(1, 'alice', { interruptId: 'r1:gate:0' }))
          .next().status,
      ).toBe('resolved');
    });
  });

  describe('after a decision', () => {
    const resolved = {
      type: 'interrupt.resolved',
      data: { resumeValue: 1, resolvedBy: 'alice', resolvedAt: NOW },
    } as const;

    it('given resolved, a second resolve gets interrupt_already_resolved', () => {
      given(opened('custom', {}), resolved)
        .when(resolveWith(2, 'bob'))
        .thenRefuses('interrupt_already_resolved', { status: 'resolved' });
    });

    it('given expired, a resolve gets interrupt_already_resolved', () => {
      given(opened('custom', {}), { type: 'interrupt.expired', data: { expiredAt: NOW } })
        .when(resolveWith(2))
        .thenRefuses('interrupt_already_resolved', { status: 'expired' });
    });

    it('given cancelled, a resolve gets interrupt_already_resolved (status cancelled; RFC 0213, not 422)', () => {
      given(opened('approval', approvalData()), { type: 'interrupt.cancelled', data: { cancelledAt: NOW } })
        .when(resolveWith({ action: 'accept' }))
        .thenRefuses('interrupt_already_resolved', { status: 'cancelled' });
    });
  });

  describe('expire', () => {
    it('given pending, expires it', () => {
      given(opened('custom', {}))
        .when({ type: 'ExpireInterrupt', interruptId: 'r1:gate:0', context: ctx('timer', { now: LATER }) })
        .then([{ type: 'interrupt.expired', data: { expiredAt: LATER } }]);
    });

    it('is a no-op once resolved, cancelled, or for another interrupt', () => {
      const expire = { type: 'ExpireInterrupt', interruptId: 'r1:gate:0', context: ctx('timer') } as const;
      given(opened('custom', {}), {
        type: 'interrupt.resolved',
        data: { resumeValue: 1, resolvedBy: 'a', resolvedAt: NOW },
      })
        .when(expire)
        .then([]);
      given(opened('custom', {}), { type: 'interrupt.cancelled', data: { cancelledAt: NOW } })
        .when(expire)
        .then([]);
      given(opened('custom', {}))
        .when({ ...expire, interruptId: 'other' })
        .then([]);
      given().when(expire).then([]);
    });

    it('resumes the engine with outcome timeout, naming the system principal', () => {
      const next = given(opened('approval', approvalData()))
        .when({ type: 'ExpireInterrupt', interruptId: 'r1:gate:0', context: ctx('timer', { now: LATER }) })
        .next();
      expect(resumeDecisionOf(next)).toEqual({
        runId: 'r1',
        nodeId: 'gate',
        interruptId: 'r1:gate:0',
        key: 'r1:gate:0',
        outcome: 'timeout',
        resolvedBy: TIMEOUT_PRINCIPAL,
        resolvedAt: LATER,
      });
    });
  });

  describe('cancel', () => {
    it('given pending, cancels it with the reason', () => {
      given(opened('custom', {}))
        .when({ type: 'CancelInterrupt', reason: 'user', context: ctx() })
        .then([{ type: 'interrupt.cancelled', data: { cancelledAt: NOW, reason: 'user' } }]);
    });

    it('leaves a decided interrupt alone', () => {
      given(opened('custom', {}), { type: 'interrupt.expired', data: { expiredAt: NOW } })
        .when({ type: 'CancelInterrupt', context: ctx() })
        .then([]);
    });

    it('has no resume decision: cancellation reaches the engine as run.cancel', () => {
      const next = given(opened('custom', {})).when({ type: 'CancelInterrupt', context: ctx() }).next();
      expect(resumeDecisionOf(next)).toBeUndefined();
    });
  });

  describe('kinds without their own rules', () => {
    it.each(['custom', 'low-confidence', 'conversation.start', 'conversation.close'] as const)(
      '%s accepts any JSON value',
      (kind) => {
        const next = given(opened(kind, {}))
          .when(resolveWith({ anything: [1, 'two'] }, 'bob'))
          .next();
        expect(resumeDecisionOf(next)).toMatchObject({
          outcome: 'resolved',
          resumeValue: { anything: [1, 'two'] },
          resolvedBy: 'bob',
          resolvedAt: NOW,
        });
      },
    );

    it('resumes a missing value as null', () => {
      const next = given(opened('custom', {})).when(resolveWith(undefined)).next();
      expect(next).toMatchObject({ status: 'resolved', resumeValue: null });
    });

    it('validates a conversation.exchange answer against its outcomeSchema', () => {
      const data = {
        conversationId: 'c1',
        prompt: 'Go?',
        outcomeSchema: { type: 'object', required: ['reply'] },
      };
      given(opened('conversation.exchange', data)).when(resolveWith({})).thenRefuses('validation_error');
      expect(
        given(opened('conversation.exchange', data))
          .when(resolveWith({ reply: 'yes' }))
          .next().status,
      ).toBe('resolved');
    });
  });

  describe('resumeSchema', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 } },
      required: ['n'],
      additionalProperties: false,
    };

    it('refuses a value that does not match, with JSON-pointer errors', () => {
      const error = given(opened('custom', {}, { resumeSchema: schema }))
        .when(resolveWith({ n: 0 }))
        .thenRefuses('validation_error');
      expect(error.details).toEqual({ errors: [{ path: '/n', message: 'must be >= 1' }] });
    });

    it('accepts a matching value', () => {
      expect(
        given(opened('custom', {}, { resumeSchema: schema }))
          .when(resolveWith({ n: 2 }))
          .next().status,
      ).toBe('resolved');
    });

    it('supports formats and ignores a foreign $schema draft', () => {
      const withFormat = {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'string',
        format: 'email',
      };
      given(opened('custom', {}, { resumeSchema: withFormat }))
        .when(resolveWith('nope'))
        .thenRefuses('validation_error');
      expect(
        given(opened('custom', {}, { resumeSchema: withFormat }))
          .when(resolveWith('a@b.co'))
          .next().status,
      ).toBe('resolved');
    });

    it('refuses every answer when the schema itself is invalid', () => {
      given(opened('custom', {}, { resumeSchema: { type: 'no-such-type' } }))
        .when(resolveWith(1))
        .thenRefuses('validation_error');
    });
  });
});
