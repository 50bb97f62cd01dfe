import { DEFAULT_TOKEN_TTL_MS, tokenExpiry } from './token-expiry';

describe('tokenExpiry', () => {
  const at = '2026-01-01T00:00:00.000Z';

  it('defaults to 30 minutes after the request', () => {
    expect(DEFAULT_TOKEN_TTL_MS).toBe(1_800_000);
    expect(tokenExpiry(at, undefined)).toBe('2026-01-01T00:30:00.000Z');
  });

  it("is capped at the interrupt's own timeoutMs", () => {
    expect(tokenExpiry(at, 1500)).toBe('2026-01-01T00:00:01.500Z');
    expect(tokenExpiry(at, 3_600_000)).toBe('2026-01-01T00:30:00.000Z');
    expect(tokenExpiry(at, 0)).toBe(at);
  });

  it('takes a configured default lifetime', () => {
    expect(tokenExpiry(at, 60_000, 5_000)).toBe('2026-01-01T00:00:05.000Z');
    expect(tokenExpiry(at, 2_000, 5_000)).toBe('2026-01-01T00:00:02.000Z');
  });

  it('depends on requestedAt only, never on the clock', () => {
    expect(tokenExpiry('2020-01-01T00:00:00.000Z', undefined)).toBe('2020-01-01T00:30:00.000Z');
  });

  it('refuses a bad date or a negative lifetime', () => {
    expect(() => tokenExpiry('nope', undefined)).toThrow(RangeError);
    expect(() => tokenExpiry(at, -1)).toThrow(RangeError);
    expect(() => tokenExpiry(at, undefined, -5)).toThrow(RangeError);
  });
});
