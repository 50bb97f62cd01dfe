import { readTokenSettings } from './token-settings';

describe('readTokenSettings', () => {
  it('defaults to 30 minutes and reads WOP_TOKEN_TTL_MS', () => {
    expect(readTokenSettings({})).toEqual({ defaultTtlMs: 1_800_000 });
    expect(readTokenSettings({ WOP_TOKEN_TTL_MS: '2500' })).toEqual({ defaultTtlMs: 2500 });
  });

  it.each(['0', '-1', '1.5', 'soon'])('refuses %s', (raw) => {
    expect(() => readTokenSettings({ WOP_TOKEN_TTL_MS: raw })).toThrow(/WOP_TOKEN_TTL_MS/);
  });
});
