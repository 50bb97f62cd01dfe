import fc from 'fast-check';
import type { KeyRing } from './key-ring';
import { signToken, verifyToken } from './resolution-token';
import { tokenExpiry } from './token-expiry';
import type { TokenClaims } from './token-payload';
import { authorizeTokenUse } from './token-use.rules';

// Properties of the token format: nothing but the exact minted string verifies.

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const id = fc.string({ minLength: 1, maxLength: 40 });
const claimsArb: fc.Arbitrary<TokenClaims> = fc.record({
  runId: id,
  nodeId: id,
  interruptId: id,
  expiresAt: fc
    .integer({ min: NOW + 1, max: NOW + 10 * 365 * 86_400_000 })
    .map((ms) => new Date(ms).toISOString()),
  intent: fc.constantFrom('resolve' as const, 'inspect' as const),
});
const secretArb = fc.uint8Array({ minLength: 16, maxLength: 64 }).map((a) => Buffer.from(a));
const ringArb: fc.Arbitrary<KeyRing> = fc
  .record({ kid: fc.string({ minLength: 1, maxLength: 12 }), secret: secretArb })
  .map(({ kid, secret }) => ({ activeKid: kid, keys: { [kid]: { secret } } }));

const verifies = (token: string, ring: KeyRing) => verifyToken(token, ring, NOW).ok;

describe('token properties', () => {
  it('every minted token verifies, with exactly its claims', () => {
    fc.assert(
      fc.property(claimsArb, ringArb, (claims, ring) => {
        const result = verifyToken(signToken(claims, ring), ring, NOW);
        return (
          result.ok &&
          JSON.stringify(result.payload) ===
            JSON.stringify({ v: 1, alg: 'HS256', kid: ring.activeKid, ...claims })
        );
      }),
    );
  });

  it('no single bit flip of a token verifies', () => {
    fc.assert(
      fc.property(claimsArb, ringArb, fc.nat(), fc.integer({ min: 0, max: 15 }), (claims, ring, at, bit) => {
        const token = signToken(claims, ring);
        const i = at % token.length;
        const flipped =
          token.slice(0, i) + String.fromCharCode(token.charCodeAt(i) ^ (1 << bit)) + token.slice(i + 1);
        return !verifies(flipped, ring);
      }),
    );
  });

  it('no truncation or extension of a token verifies', () => {
    fc.assert(
      fc.property(
        claimsArb,
        ringArb,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 8 }),
        (claims, ring, cut, tail) => {
          const token = signToken(claims, ring);
          return (
            !verifies(token.slice(0, cut % token.length), ring) &&
            !verifies(token + tail, ring) &&
            !verifies(tail + token, ring)
          );
        },
      ),
    );
  });

  it('no re-encoding verifies: padding, standard base64, whitespace, a case change', () => {
    const reencode = fc.oneof(
      fc.constantFrom(
        (t: string) =>
          t
            .split('.')
            .map((p) => p + '='.repeat((4 - (p.length % 4)) % 4 || 1))
            .join('.'),
        (t: string) =>
          t
            .split('.')
            .map((p) => Buffer.from(p, 'base64url').toString('base64'))
            .join('.'),
        (t: string) => t.replace(/-/g, '+').replace(/_/g, '/'),
        (t: string) => t.toUpperCase(),
        (t: string) => t.toLowerCase(),
        (t: string) => encodeURIComponent(t).replace(/\./g, '%2E'),
      ),
      fc
        .tuple(fc.nat(), fc.constantFrom(' ', '\n', '\t', '\r\n', '%20', '+'))
        .map(([at, ws]) => (t: string) => {
          const i = at % (t.length + 1);
          return t.slice(0, i) + ws + t.slice(i);
        }),
      fc.nat().map((at) => (t: string) => {
        const i = at % t.length;
        const c = t[i]!;
        const swapped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
        return t.slice(0, i) + swapped + t.slice(i + 1);
      }),
    );
    fc.assert(
      fc.property(claimsArb, ringArb, reencode, (claims, ring, f) => {
        const token = signToken(claims, ring);
        const variant = f(token);
        return variant === token || !verifies(variant, ring);
      }),
    );
  });

  it("a token for one interrupt never verifies as another's: spliced MACs fail, and a stored row of another interrupt refuses it", () => {
    fc.assert(
      fc.property(claimsArb, claimsArb, ringArb, (a, b, ring) => {
        fc.pre(a.interruptId !== b.interruptId);
        const ta = signToken(a, ring);
        const tb = signToken(b, ring);
        const spliced = `${tb.split('.')[0]}.${ta.split('.')[1]}`;
        if (verifies(spliced, ring)) return false;
        const stored = { runId: b.runId, nodeId: b.nodeId, interruptId: b.interruptId, invalidated: false };
        try {
          authorizeTokenUse(verifyToken(ta, ring, NOW), stored, 'inspect');
          return false;
        } catch (e) {
          return (e as { code?: string }).code === 'interrupt_not_found';
        }
      }),
    );
  });

  it('rotation: a k1 token verifies while k2 is active, and is refused once k1 is retired or dropped', () => {
    fc.assert(
      fc.property(claimsArb, secretArb, secretArb, (claims, s1, s2) => {
        const token = signToken(claims, { activeKid: 'k1', keys: { k1: { secret: s1 } } });
        const rotated = { activeKid: 'k2', keys: { k1: { secret: s1 }, k2: { secret: s2 } } };
        const retired = { activeKid: 'k2', keys: { k1: { secret: s1, retired: true }, k2: { secret: s2 } } };
        const dropped = { activeKid: 'k2', keys: { k2: { secret: s2 } } };
        return verifies(token, rotated) && !verifies(token, retired) && !verifies(token, dropped);
      }),
    );
  });

  it('random strings never verify', () => {
    const ring: KeyRing = { activeKid: 'k1', keys: { k1: { secret: Buffer.alloc(32, 9) } } };
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => !verifies(s, ring)));
  });

  it('expiry never exceeds 30 minutes nor the interrupt timeout', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.option(fc.integer({ min: 0, max: 10 * 3_600_000 }), { nil: undefined }),
        (start, timeoutMs) => {
          const requestedAt = new Date(start).toISOString();
          const expiry = Date.parse(tokenExpiry(requestedAt, timeoutMs));
          return (
            expiry - start <= 1_800_000 &&
            (timeoutMs === undefined || expiry - start <= timeoutMs) &&
            expiry >= start
          );
        },
      ),
    );
  });
});

describe('ow2 token properties (identity.md §4)', () => {
  // A kid of the keyId grammar (dots included), never `legacy`.
  const kidArb = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/).filter((kid) => kid !== 'legacy');
  const ow2RingArb: fc.Arbitrary<KeyRing> = fc
    .record({ kid: kidArb, secret: secretArb })
    .map(({ kid, secret }) => ({ activeKid: kid, keys: { [kid]: { secret } } }));

  it('every minted ow2 token verifies, with exactly its header and claims', () => {
    fc.assert(
      fc.property(claimsArb, ow2RingArb, (claims, ring) => {
        const token = signToken(claims, ring, 'ow2');
        const result = verifyToken(token, ring, NOW);
        return (
          token.startsWith(`ow2.hs256.${ring.activeKid}.`) &&
          result.ok &&
          JSON.stringify(result.payload) ===
            JSON.stringify({ v: 2, alg: 'hs256', kid: ring.activeKid, ...claims })
        );
      }),
    );
  });

  it('no single bit flip of an ow2 token verifies, header included', () => {
    fc.assert(
      fc.property(
        claimsArb,
        ow2RingArb,
        fc.nat(),
        fc.integer({ min: 0, max: 15 }),
        (claims, ring, at, bit) => {
          const token = signToken(claims, ring, 'ow2');
          const i = at % token.length;
          const flipped =
            token.slice(0, i) + String.fromCharCode(token.charCodeAt(i) ^ (1 << bit)) + token.slice(i + 1);
          return !verifies(flipped, ring);
        },
      ),
    );
  });
});
