import { instantAfter, LATEST_INSTANT_MS } from './instants';

describe('instantAfter', () => {
  const from = Date.parse('2026-01-01T00:00:00.000Z');

  it('adds an ordinary timeout', () => {
    expect(instantAfter(from, 60_000)).toBe('2026-01-01T00:01:00.000Z');
  });

  it.each([1e15, 1e300, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY, Number.NaN])(
    'clamps a timeout of %s to the latest instant, a plain ISO string',
    (timeoutMs) => {
      expect(instantAfter(from, timeoutMs)).toBe('9999-12-31T23:59:59.999Z');
    },
  );

  it('never goes before the epoch', () => {
    expect(instantAfter(from, -1e300)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('the latest instant is the last millisecond of year 9999', () => {
    expect(new Date(LATEST_INSTANT_MS).toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });
});
