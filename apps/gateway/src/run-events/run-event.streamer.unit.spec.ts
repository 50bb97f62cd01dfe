import { KEEPALIVE_MS, keepaliveMsFrom } from './run-event.streamer';

describe('keepaliveMsFrom', () => {
  it('defaults to 15 s, within the 30 s the spec allows', () => {
    expect(keepaliveMsFrom({})).toBe(KEEPALIVE_MS);
    expect(keepaliveMsFrom({ SSE_KEEPALIVE_MS: '' })).toBe(KEEPALIVE_MS);
    expect(KEEPALIVE_MS).toBeLessThanOrEqual(30_000);
  });

  it('reads SSE_KEEPALIVE_MS', () => {
    expect(keepaliveMsFrom({ SSE_KEEPALIVE_MS: '250' })).toBe(250);
    expect(keepaliveMsFrom({ SSE_KEEPALIVE_MS: '30000' })).toBe(30_000);
  });

  it.each([['0'], ['30001'], ['1.5'], ['-1'], ['soon']])('refuses %j', (raw) => {
    expect(() => keepaliveMsFrom({ SSE_KEEPALIVE_MS: raw })).toThrow(/SSE_KEEPALIVE_MS/);
  });
});
