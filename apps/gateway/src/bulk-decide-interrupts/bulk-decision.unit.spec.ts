import { MAX_BULK_DECISION_ITEMS } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { ApiError } from '../common/api.error';
import { parseBulkCancelInterruptsRequest, parseBulkResolveRequest } from './bulk-decision.request';
import { bulkItemCommandId, failed, mapBounded } from './bulk-decision.results';

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('bulk decision requests', () => {
  const item = (i: number) => ({ runId: `r${i}`, nodeId: 'gate', resumeValue: { action: 'accept' } });

  it('takes items, each with its own answer, in order', () => {
    expect(parseBulkResolveRequest({ items: [item(1), item(2)] }).selection).toEqual({
      by: 'items',
      items: [item(1), item(2)],
    });
  });

  it('takes a filter with one answer and defaults the limit to the cap', () => {
    expect(
      parseBulkResolveRequest({
        filter: { kind: 'approval', olderThanMs: 0 },
        resumeValue: { action: 'accept' },
      }),
    ).toEqual({
      selection: {
        by: 'filter',
        filter: { kind: 'approval', olderThanMs: 0 },
        limit: MAX_BULK_DECISION_ITEMS,
      },
      resumeValue: { action: 'accept' },
    });
  });

  it.each([
    ['neither items nor filter', {}],
    ['both', { items: [item(1)], filter: {}, resumeValue: 1 }],
    ['empty items', { items: [] }],
    ['an item without its answer', { items: [{ runId: 'r', nodeId: 'n' }] }],
    ['a filter without an answer', { filter: {} }],
    ['an unknown filter field', { filter: { assignee: 'x' }, resumeValue: 1 }],
    ['an unknown kind', { filter: { kind: 'nope' }, resumeValue: 1 }],
    ['a negative age', { filter: { olderThanMs: -1 }, resumeValue: 1 }],
    ['the same interrupt twice', { items: [item(1), item(1)] }],
    ['a limit with items', { items: [item(1)], limit: 3 }],
    ['an unknown field', { items: [item(1)], extra: true }],
    ['a body that is no object', [item(1)]],
  ])('refuses %s with validation_error', (_what, body) => {
    expect(refusal(() => parseBulkResolveRequest(body)).code).toBe('validation_error');
  });

  it('refuses more than the cap with details.maxItems, by items or by limit', () => {
    const many = Array.from({ length: MAX_BULK_DECISION_ITEMS + 1 }, (_, i) => item(i));
    expect(refusal(() => parseBulkResolveRequest({ items: many })).details).toMatchObject({
      maxItems: MAX_BULK_DECISION_ITEMS,
    });
    expect(
      refusal(() => parseBulkCancelInterruptsRequest({ filter: {}, limit: MAX_BULK_DECISION_ITEMS + 1 }))
        .details,
    ).toMatchObject({
      maxItems: MAX_BULK_DECISION_ITEMS,
    });
  });

  it('a bulk cancel takes targets without answers and a reason', () => {
    expect(
      parseBulkCancelInterruptsRequest({ items: [{ runId: 'r', nodeId: 'n' }], reason: 'stale' }),
    ).toEqual({
      selection: { by: 'items', items: [{ runId: 'r', nodeId: 'n', resumeValue: undefined }] },
      reason: 'stale',
    });
    expect(refusal(() => parseBulkCancelInterruptsRequest({ items: [item(1)] })).code).toBe(
      'validation_error',
    );
  });
});

describe('bulk decision items', () => {
  it('derive one command id per (tenant, request key, interrupt), shaped as a UUID', () => {
    const a = bulkItemCommandId('op', 't1', 'key', { runId: 'r', nodeId: 'n' });
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(bulkItemCommandId('op', 't1', 'key', { runId: 'r', nodeId: 'n' })).toBe(a);
    expect(
      new Set([
        a,
        bulkItemCommandId('op', 't2', 'key', { runId: 'r', nodeId: 'n' }),
        bulkItemCommandId('op', 't1', 'other', { runId: 'r', nodeId: 'n' }),
        bulkItemCommandId('op', 't1', 'key', { runId: 'r2', nodeId: 'n' }),
        bulkItemCommandId('op', 't1', 'key', { runId: 'r', nodeId: 'n2' }),
      ]).size,
    ).toBe(5);
  });

  it("keep a refusal's code and turn anything else into unavailable for that item alone", () => {
    const t = { runId: 'r', nodeId: 'n' };
    expect(failed(t, new DomainError('interrupt_already_resolved', 'done'))).toEqual({
      runId: 'r',
      nodeId: 'n',
      ok: false,
      error: { code: 'interrupt_already_resolved', message: 'done' },
    });
    expect(failed(t, new Error('boom'))).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });

  it('run with at most the bound in flight and keep the order', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapBounded(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (i) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return i * 2;
      },
    );
    expect(out).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
    expect(most).toBe(4);
  });
});
