import { createHmac } from 'node:crypto';
import { INTERRUPT_TOKEN_ALGS, LEGACY_TOKEN_KID, type RunEventDoc } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { fromBase64Url, toBase64Url } from './base64url.util';
import type { KeyRing } from './key-ring';
import { peekTokenPayload, schemeKidOf, signToken, tokenSchemeOf, verifyToken } from './resolution-token';
import { DEFAULT_TOKEN_TTL_MS } from './token-expiry';
import { tokenSchemeOfRun, tokenStateOf } from './token-lifecycle';
import type { TokenClaims } from './token-payload';
import { authorizeTokenUse } from './token-use.rules';

// `ow2.<alg>.<kid>.<payload>.<mac>` (identity.md §4, RFC 0170 §E.1): the format, the refusal of an
// alg or kid we do not hold, expiry (default 30 min, capped at the interrupt's timeout), and the
// v1 tokens that keep verifying (`kid: legacy`) beside them.

const k1 = Buffer.alloc(32, 1);
const k2 = Buffer.alloc(32, 2);
const ring: KeyRing = { activeKid: 'k.1', keys: { 'k.1': { secret: k1 }, k2: { secret: k2 } } };
const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const claims: TokenClaims = {
  runId: 'run-1',
  nodeId: 'gate',
  interruptId: 'run-1:gate:0',
  expiresAt: '2026-01-01T00:30:00.000Z',
  intent: 'resolve',
};

/** An ow2 token over any header and payload text, MACed with `secret` as the host would. */
function ow2(alg: string, kid: string, payloadText: string, secret: Buffer): string {
  const input = `ow2.${alg}.${kid}.${toBase64Url(payloadText)}`;
  return `${input}.${toBase64Url(createHmac('sha256', secret).update(input).digest())}`;
}

const canonical = JSON.stringify({
  runId: claims.runId,
  nodeId: claims.nodeId,
  interruptId: claims.interruptId,
  expiresAt: claims.expiresAt,
  intent: claims.intent,
});

describe('ow2 tokens: format', () => {
  it('is ow2.hs256.<kid>.<base64url claims>.<base64url HMAC-SHA256 over everything before the mac>', () => {
    const token = signToken(claims, ring, 'ow2');
    expect(token).toBe(ow2('hs256', 'k.1', canonical, k1));
    expect(token.startsWith('ow2.hs256.k.1.')).toBe(true);
    const segments = token.split('.');
    expect(fromBase64Url(segments.at(-2)!)!.toString('utf8')).toBe(canonical);
    expect(fromBase64Url(segments.at(-1)!)).toHaveLength(32);
    expect(tokenSchemeOf(token)).toBe('ow2');
    expect(signToken(claims, ring, 'ow2')).toBe(token); // deterministic
  });

  it('verifies to its header alg and kid (a kid may hold dots) and its claims', () => {
    const token = signToken(claims, ring, 'ow2');
    const verified = verifyToken(token, ring, NOW);
    expect(verified).toEqual({ ok: true, payload: { v: 2, alg: 'hs256', kid: 'k.1', ...claims } });
    expect(verified.ok && schemeKidOf(verified.payload)).toBe('k.1');
    expect(peekTokenPayload(token)).toEqual(claims);
  });

  it('advertises exactly the algorithms it verifies', () => {
    expect([...INTERRUPT_TOKEN_ALGS]).toEqual(['hs256']);
    for (const alg of INTERRUPT_TOKEN_ALGS)
      expect(verifyToken(ow2(alg, 'k2', canonical, k2), ring, NOW)).toMatchObject({ ok: true });
  });

  it('is strict: a payload with other fields, another spelling or a bad MAC length is malformed', () => {
    for (const text of [
      JSON.stringify({ ...claims, extra: 1 }),
      JSON.stringify({ ...claims, v: 2, alg: 'hs256', kid: 'k.1' }),
      canonical.replace('{', '{ '),
      JSON.stringify({ ...claims, expiresAt: '2026-01-01T00:30:00Z' }),
    ])
      expect(verifyToken(ow2('hs256', 'k.1', text, k1), ring, NOW)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    const token = signToken(claims, ring, 'ow2');
    for (const bad of [
      'ow2.',
      'ow2.hs256.k.1',
      `ow2.hs256..${token.split('.').slice(-2).join('.')}`,
      `${token}=`,
      token.slice(0, -2),
    ])
      expect(verifyToken(bad, ring, NOW)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('the prefix decides the scheme, never a segment count', () => {
    const v1 = signToken(claims, ring);
    expect(tokenSchemeOf(v1)).toBe('v1');
    expect(v1.startsWith('ow2.')).toBe(false);
    // A v1-shaped token behind the prefix is an ow2 token with no kid: not verifiable.
    expect(verifyToken(`ow2.${v1}`, ring, NOW)).toMatchObject({ ok: false, reason: 'malformed' });
  });
});

describe('ow2 tokens: alg and kid refusal (interrupt_token_invalid)', () => {
  const token = signToken(claims, ring, 'ow2');
  const rest = token.split('.').slice(-2); // payload and mac (the kid k.1 holds a dot)

  it('an alg we do not advertise is unknown_alg, even when MACed with a held key', () => {
    for (const alg of ['hs512', 'HS256', 'none', 'rs256'])
      expect(verifyToken(ow2(alg, 'k.1', canonical, k1), ring, NOW)).toEqual({
        ok: false,
        reason: 'unknown_alg',
      });
    expect(verifyToken(`ow2.hs512.k.1.${rest.join('.')}`, ring, NOW)).toEqual({
      ok: false,
      reason: 'unknown_alg',
    });
  });

  it('a kid the ring does not hold, a retired one, or legacy is unknown_key', () => {
    expect(verifyToken(ow2('hs256', 'k9', canonical, k1), ring, NOW)).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
    const retired: KeyRing = {
      activeKid: 'k2',
      keys: { 'k.1': { secret: k1, retired: true }, k2: { secret: k2 } },
    };
    expect(verifyToken(token, retired, NOW)).toEqual({ ok: false, reason: 'unknown_key' });
    const legacyKeyed: KeyRing = {
      activeKid: 'k2',
      keys: { [LEGACY_TOKEN_KID]: { secret: k1 }, k2: { secret: k2 } },
    };
    expect(verifyToken(ow2('hs256', LEGACY_TOKEN_KID, canonical, k1), legacyKeyed, NOW)).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
    expect(() => signToken(claims, { activeKid: LEGACY_TOKEN_KID, keys: legacyKeyed.keys }, 'ow2')).toThrow(
      /cannot sign an ow2 token/,
    );
  });

  it('a kid swapped for another held key, or any tampered byte, is bad_mac: the MAC covers the header', () => {
    expect(verifyToken(`ow2.hs256.k2.${rest.join('.')}`, ring, NOW)).toEqual({
      ok: false,
      reason: 'bad_mac',
    });
    const other = signToken({ ...claims, interruptId: 'run-1:gate:1' }, ring, 'ow2').split('.');
    const spliced = [...token.split('.').slice(0, -2), other.at(-2), token.split('.').at(-1)].join('.');
    expect(verifyToken(spliced, ring, NOW)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('every such refusal is interrupt_token_invalid; an authentic token naming no interrupt is interrupt_not_found', () => {
    const codeOf = (t: string, stored = true): string => {
      try {
        authorizeTokenUse(
          verifyToken(t, ring, NOW),
          stored
            ? { runId: 'run-1', nodeId: 'gate', interruptId: 'run-1:gate:0', invalidated: false }
            : undefined,
          'resolve',
        );
        return 'ok';
      } catch (e) {
        if (e instanceof DomainError) return e.code;
        throw e;
      }
    };
    expect(codeOf(token)).toBe('ok');
    for (const bad of [
      ow2('hs512', 'k.1', canonical, k1),
      ow2('hs256', 'k9', canonical, k1),
      `ow2.hs256.k2.${rest.join('.')}`,
      'ow2.garbage',
    ])
      expect(codeOf(bad)).toBe('interrupt_token_invalid');
    expect(codeOf(token, false)).toBe('interrupt_not_found');
  });
});

describe('ow2 tokens: expiry', () => {
  it('is refused from expiresAt on (410 interrupt_expired), after the MAC checked out', () => {
    const token = signToken(claims, ring, 'ow2');
    const at = Date.parse(claims.expiresAt);
    expect(verifyToken(token, ring, at - 1)).toMatchObject({ ok: true });
    expect(verifyToken(token, ring, at)).toMatchObject({ ok: false, reason: 'expired', payload: { v: 2 } });
    expect(() => authorizeTokenUse(verifyToken(token, ring, at), undefined, 'inspect')).toThrow(
      expect.objectContaining({ code: 'interrupt_expired' }) as Error,
    );
    // A forged expired token is refused as invalid, never as expired.
    expect(verifyToken(ow2('hs256', 'k.1', canonical, k2), ring, at)).toEqual({
      ok: false,
      reason: 'bad_mac',
    });
  });

  function ev(type: RunEventDoc['type'], payload: unknown, sequence: number): RunEventDoc {
    return {
      eventId: `run-1:${sequence}`,
      runId: 'run-1',
      type,
      payload,
      sequence,
      timestamp: '2026-01-01T00:00:00.000Z',
    };
  }
  const requested = (timeoutMs?: number): RunEventDoc =>
    ev(
      'interrupt.requested',
      {
        nodeId: 'gate',
        interruptId: 'run-1:gate:0',
        kind: 'approval',
        key: 'run-1:gate:0',
        data: {},
        requestedAt: '2026-01-01T00:00:00.000Z',
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      },
      1,
    );
  const v2Started = ev('run.started', { owner: { tenant: 't1' }, protocolMajor: 2 }, 0);
  const v1Started = ev('run.started', { owner: { tenant: 't1' } }, 0);
  const settings = { ring, defaultTtlMs: DEFAULT_TOKEN_TTL_MS };

  it('a major-2 run mints ow2 tokens that always carry expiresAt: 30 minutes by default, capped at the timeout', () => {
    const open = tokenStateOf([v2Started, requested()], 'run-1:gate:0', settings)!;
    expect(open.tokens.expiresAt).toBe('2026-01-01T00:30:00.000Z');
    const capped = tokenStateOf([v2Started, requested(90_000)], 'run-1:gate:0', settings)!;
    expect(capped.tokens.expiresAt).toBe('2026-01-01T00:01:30.000Z');
    const longer = tokenStateOf([v2Started, requested(3_600_000)], 'run-1:gate:0', settings)!;
    expect(longer.tokens.expiresAt).toBe('2026-01-01T00:30:00.000Z');
    for (const state of [open, capped, longer]) {
      for (const token of [state.tokens.resolveToken, state.tokens.inspectToken]) {
        expect(tokenSchemeOf(token)).toBe('ow2');
        const verified = verifyToken(token, ring, NOW);
        expect(verified).toMatchObject({ ok: true, payload: { v: 2, expiresAt: state.tokens.expiresAt } });
      }
    }
    expect(
      verifyToken(capped.tokens.resolveToken, ring, Date.parse('2026-01-01T00:01:30.000Z')),
    ).toMatchObject({
      ok: false,
      reason: 'expired',
    });
  });

  it('a major-1 run (or one from before protocolMajor) keeps v1 tokens, verified under kid legacy', () => {
    expect(tokenSchemeOfRun(v1Started)).toBe('v1');
    expect(tokenSchemeOfRun(undefined)).toBe('v1');
    expect(tokenSchemeOfRun(v2Started)).toBe('ow2');
    const state = tokenStateOf([v1Started, requested()], 'run-1:gate:0', settings)!;
    expect(tokenSchemeOf(state.tokens.resolveToken)).toBe('v1');
    const verified = verifyToken(state.tokens.resolveToken, ring, NOW);
    expect(verified).toMatchObject({ ok: true, payload: { v: 1, kid: 'k.1' } });
    expect(verified.ok && schemeKidOf(verified.payload)).toBe(LEGACY_TOKEN_KID);
    // …until it expires, like any token.
    expect(verifyToken(state.tokens.resolveToken, ring, Date.parse(state.tokens.expiresAt))).toMatchObject({
      ok: false,
      reason: 'expired',
    });
  });
});
