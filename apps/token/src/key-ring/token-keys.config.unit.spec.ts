import { describeKeyRing, generateTokenKeys, MIN_SECRET_BYTES, parseTokenKeys } from './token-keys.config';

const s1 = Buffer.alloc(32, 1).toString('base64');
const s2 = Buffer.alloc(48, 2).toString('base64url');
const s0 = Buffer.alloc(32, 9).toString('base64');

describe('parseTokenKeys (WOP_TOKEN_KEYS)', () => {
  it('reads the active key, the verifying keys and the retired ones', () => {
    const ring = parseTokenKeys(
      JSON.stringify({ active: 'k2', keys: { k0: s0, k1: s1, k2: s2 }, retired: ['k0'] }),
      'WOP_TOKEN_KEYS',
    );
    expect(ring.activeKid).toBe('k2');
    expect(ring.keys.k1).toEqual({ secret: Buffer.alloc(32, 1) });
    expect(ring.keys.k2).toEqual({ secret: Buffer.alloc(48, 2) });
    expect(ring.keys.k0).toEqual({ secret: Buffer.alloc(32, 9), retired: true });
    expect(describeKeyRing(ring)).toBe('active key k2; verifying k1, k2; retired k0');
  });

  it.each([
    ['not JSON', `{"active":"k1","keys":{"k1":"${s1}"`, /not valid JSON/],
    ['an array', '[]', /JSON object/],
    ['no active', JSON.stringify({ keys: { k1: s1 } }), /"active"/],
    [
      'an active key not in keys',
      JSON.stringify({ active: 'k2', keys: { k1: s1 } }),
      /active key k2 is not in/,
    ],
    [
      'a retired active key',
      JSON.stringify({ active: 'k1', keys: { k1: s1 }, retired: ['k1'] }),
      /active key k1 is retired/,
    ],
    [
      'a short secret',
      JSON.stringify({ active: 'k1', keys: { k1: Buffer.alloc(16).toString('base64') } }),
      /16 bytes.*at least 32/,
    ],
    [
      'a non-base64 secret',
      JSON.stringify({ active: 'k1', keys: { k1: 'not base64 !!' } }),
      /must be base64/,
    ],
    ['a bad kid', JSON.stringify({ active: 'k1', keys: { k1: s1, 'a b': s1 } }), /key id/],
    ['a bad retired list', JSON.stringify({ active: 'k1', keys: { k1: s1 }, retired: 'k0' }), /"retired"/],
  ])('refuses %s, naming the fix and never a secret', (_w, raw, message) => {
    let error: Error | undefined;
    try {
      parseTokenKeys(raw, 'WOP_TOKEN_KEYS');
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).toMatch(/^WOP_TOKEN_KEYS: /);
    for (const secret of [s1, s2, s0]) expect(error?.message).not.toContain(secret);
  });

  it('refuses the key id legacy: it names the scheme of v1 tokens (identity.md §4), never a key', () => {
    expect(() =>
      parseTokenKeys(JSON.stringify({ active: 'k1', keys: { k1: s1, legacy: s0 } }), 'WOP_TOKEN_KEYS'),
    ).toThrow(/key id legacy is reserved for v1 tokens/);
  });

  it('generates one random key of 32 bytes', () => {
    const a = generateTokenKeys();
    const b = generateTokenKeys();
    expect(a.active).not.toBe(b.active);
    const ring = parseTokenKeys(JSON.stringify(a), 'generated');
    expect(ring.keys[a.active]?.secret).toHaveLength(MIN_SECRET_BYTES);
  });
});
