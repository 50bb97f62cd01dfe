import { createHmac } from 'node:crypto';
import { fromBase64Url, toBase64Url } from './base64url.util';
import type { KeyRing } from './key-ring';
import {
  MAX_TOKEN_LENGTH,
  peekTokenPayload,
  signToken,
  tokenFingerprint,
  verifyToken,
} from './resolution-token';
import { serializePayload, type TokenClaims } from './token-payload';

const k1 = Buffer.alloc(32, 1);
const k2 = Buffer.alloc(32, 2);
const ring: KeyRing = { activeKid: 'k1', keys: { k1: { secret: k1 } } };
const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const claims: TokenClaims = {
  runId: 'run-1',
  nodeId: 'gate',
  interruptId: 'run-1:gate:0',
  expiresAt: '2026-01-01T00:30:00.000Z',
  intent: 'resolve',
};

/** A token with an arbitrary payload text, correctly MACed with `secret`. */
function forge(payloadText: string, secret = k1): string {
  const encoded = toBase64Url(payloadText);
  return `${encoded}.${toBase64Url(createHmac('sha256', secret).update(encoded).digest())}`;
}

describe('signToken / verifyToken', () => {
  it('round-trips: the payload carries v, alg, kid and the claims', () => {
    const token = signToken(claims, ring);
    expect(token.split('.')).toHaveLength(2);
    expect(verifyToken(token, ring, NOW)).toEqual({
      ok: true,
      payload: { v: 1, alg: 'HS256', kid: 'k1', ...claims },
    });
  });

  it('is deterministic: same claims, same key, same token', () => {
    expect(signToken(claims, ring)).toBe(signToken({ ...claims }, ring));
    expect(signToken(claims, ring)).not.toBe(signToken({ ...claims, intent: 'inspect' }, ring));
  });

  it('the MAC is HMAC-SHA256 over the encoded payload, both parts unpadded base64url', () => {
    const [p, m] = signToken(claims, ring).split('.') as [string, string];
    expect(p).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(m).toBe(createHmac('sha256', k1).update(p).digest('base64url'));
    expect(m).toHaveLength(43);
  });

  it('expires at expiresAt: valid one millisecond before, refused at the instant and after', () => {
    const token = signToken(claims, ring);
    const at = Date.parse(claims.expiresAt);
    expect(verifyToken(token, ring, at - 1).ok).toBe(true);
    expect(verifyToken(token, ring, at)).toMatchObject({
      ok: false,
      reason: 'expired',
      payload: { interruptId: claims.interruptId },
    });
    expect(verifyToken(token, ring, new Date(at + 60_000))).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('a forged MAC is bad_mac; a MAC of another key too', () => {
    const [p] = signToken(claims, ring).split('.') as [string];
    expect(verifyToken(`${p}.${toBase64Url(Buffer.alloc(32))}`, ring, NOW)).toEqual({
      ok: false,
      reason: 'bad_mac',
    });
    const other = signToken(claims, { activeKid: 'k1', keys: { k1: { secret: k2 } } });
    expect(verifyToken(other, ring, NOW)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('an unknown kid is unknown_key, including names on Object.prototype', () => {
    for (const kid of ['k9', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const token = forge(serializePayload({ v: 1, alg: 'HS256', kid, ...claims }));
      expect(verifyToken(token, ring, NOW)).toEqual({ ok: false, reason: 'unknown_key' });
    }
  });

  it('rotation: a k1 token still verifies while k2 is active; retiring k1 refuses it; k2 signs new ones', () => {
    const old = signToken(claims, ring);
    const rotated: KeyRing = { activeKid: 'k2', keys: { k1: { secret: k1 }, k2: { secret: k2 } } };
    expect(verifyToken(old, rotated, NOW)).toMatchObject({ ok: true, payload: { kid: 'k1' } });
    const fresh = signToken(claims, rotated);
    expect(verifyToken(fresh, rotated, NOW)).toMatchObject({ ok: true, payload: { kid: 'k2' } });
    const retired: KeyRing = {
      activeKid: 'k2',
      keys: { k1: { secret: k1, retired: true }, k2: { secret: k2 } },
    };
    expect(verifyToken(old, retired, NOW)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(verifyToken(fresh, retired, NOW).ok).toBe(true);
  });

  it('refuses to sign with a missing or retired active key', () => {
    expect(() => signToken(claims, { activeKid: 'k2', keys: { k1: { secret: k1 } } })).toThrow(
      /active token key k2/,
    );
    expect(() => signToken(claims, { activeKid: 'k1', keys: { k1: { secret: k1, retired: true } } })).toThrow(
      /retired/,
    );
  });

  describe('strict parsing: correctly MACed but non-canonical payloads are malformed', () => {
    const good = { v: 1, alg: 'HS256', kid: 'k1', ...claims };
    it.each([
      ['an extra field', JSON.stringify({ ...good, extra: 1 })],
      ['a missing field', JSON.stringify({ ...good, intent: undefined })],
      ['fields in another order', JSON.stringify(Object.fromEntries(Object.entries(good).reverse()))],
      ['whitespace', JSON.stringify(good, null, 1)],
      ['a duplicated key', serializePayload(good as never).replace('{', '{"v":2,')],
      ['another version', JSON.stringify({ ...good, v: 2 })],
      ['another algorithm', JSON.stringify({ ...good, alg: 'none' })],
      ['alg as number', JSON.stringify({ ...good, alg: 256 })],
      ['an unknown intent', JSON.stringify({ ...good, intent: 'admin' })],
      ['an empty runId', JSON.stringify({ ...good, runId: '' })],
      ['a numeric nodeId', JSON.stringify({ ...good, nodeId: 7 })],
      ['a non-canonical expiry', JSON.stringify({ ...good, expiresAt: '2026-01-01T00:30:00Z' })],
      ['an unparseable expiry', JSON.stringify({ ...good, expiresAt: 'tomorrow' })],
      ['an array', JSON.stringify([good])],
      ['null', 'null'],
      ['a string', JSON.stringify('hello')],
      ['not JSON', '{v:1}'],
    ])('%s', (_what, text) => {
      expect(verifyToken(forge(text), ring, NOW)).toEqual({ ok: false, reason: 'malformed' });
    });
  });

  it.each([
    ['no dot', 'abc'],
    ['two dots', `${signToken(claims, ring)}.x`],
    ['an empty payload', `.${toBase64Url(Buffer.alloc(32))}`],
    ['an empty MAC', `${signToken(claims, ring).split('.')[0]}.`],
    ['a short MAC', `${signToken(claims, ring).split('.')[0]}.${toBase64Url(Buffer.alloc(31))}`],
    ['a long MAC', `${signToken(claims, ring).split('.')[0]}.${toBase64Url(Buffer.alloc(33))}`],
    ['padding', signToken(claims, ring) + '='],
    ['too long', 'a'.repeat(MAX_TOKEN_LENGTH + 1)],
    ['invalid UTF-8', `${toBase64Url(Buffer.from([0xff, 0xfe]))}.${toBase64Url(Buffer.alloc(32))}`],
  ])('malformed: %s', (_what, token) => {
    expect(verifyToken(token, ring, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('non-strings are malformed', () => {
    for (const v of [undefined, null, 42, {}, ['a.b']])
      expect(verifyToken(v, ring, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('peekTokenPayload reads an unverified payload for routing only; tokenFingerprint shows 8 characters', () => {
    const token = signToken(claims, ring);
    expect(peekTokenPayload(token)).toMatchObject({ runId: 'run-1' });
    expect(peekTokenPayload('garbage')).toBeUndefined();
    expect(tokenFingerprint(token)).toBe(`${token.slice(0, 8)}…`);
  });
});

describe('canonical base64url', () => {
  it('accepts exactly the unpadded url-safe spelling', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0x00, 0x10]);
    const text = toBase64Url(bytes);
    expect(fromBase64Url(text)).toEqual(bytes);
    for (const variant of [
      `${text}==`,
      bytes.toString('base64'),
      ` ${text}`,
      `${text}\n`,
      text.slice(0, -1) + 'R',
    ]) {
      expect(fromBase64Url(variant)).toBeUndefined();
    }
    expect(fromBase64Url('A')).toBeUndefined();
  });
});
