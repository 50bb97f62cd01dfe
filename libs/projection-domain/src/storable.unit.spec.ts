import type { RunEventDoc } from '@openwop/contracts';
import { projectionErrorOf, storableNumber } from './storable';

describe('storableNumber', () => {
  it.each([0, 1, -5, 1.5, 1e15, 1e300, -1e300, Number.MAX_VALUE])('keeps the JSON number %s', (n) => {
    expect(storableNumber(n, 0)).toBe(n);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, '12', null, undefined, {}])('falls back for %p', (v) => {
    expect(storableNumber(v, 0)).toBe(0);
    expect(storableNumber(v, null)).toBeNull();
  });
});

describe('projectionErrorOf', () => {
  const event = { eventId: 'r:5', runId: 'r', sequence: 5, type: 'conversation.exchanged' } as RunEventDoc;

  it('names the event and the reason', () => {
    expect(projectionErrorOf(event, new TypeError('bad value'), '2026-01-01T00:00:00.000Z')).toEqual({
      eventId: 'r:5',
      sequence: 5,
      type: 'conversation.exchanged',
      reason: 'TypeError: bad value',
      at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('keeps at most 500 characters of the reason', () => {
    const e = projectionErrorOf(event, 'x'.repeat(2_000), 'now');
    expect(e.reason).toHaveLength(501);
    expect(e.reason.endsWith('…')).toBe(true);
  });
});
