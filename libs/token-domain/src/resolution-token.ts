import { createHmac, timingSafeEqual } from 'node:crypto';
import { INTERRUPT_TOKEN_ALGS, LEGACY_TOKEN_KID, OW2_TOKEN_PREFIX } from '@openwop/contracts';
import { fromBase64Url, toBase64Url } from './base64url.util';
import { signingKey, TOKEN_ALGORITHM, verificationSecret, type KeyRing } from './key-ring';
import {
  parseClaims,
  parsePayload,
  serializeClaims,
  serializePayload,
  type Ow2TokenPayload,
  type TokenClaims,
  type TokenPayload,
  type VerifiedTokenPayload,
} from './token-payload';

/** Longest string {@link verifyToken} looks at; anything longer is malformed without parsing. */
export const MAX_TOKEN_LENGTH = 4096;

/** Bytes of an HMAC-SHA256 tag. */
const MAC_BYTES = 32;

/** `kid` grammar of an `ow2.` token (identity.md §5 `keyId`). */
const KEY_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/** The two token schemes: `v1` (no prefix, verified under `kid: legacy`) and `ow2`. */
export type TokenScheme = 'v1' | 'ow2';

/**
 * Why a token does not verify. `unknown_alg` is an `ow2.` token whose `alg` is not in
 * `INTERRUPT_TOKEN_ALGS`; `unknown_key` a `kid` the ring does not hold (or retired).
 */
export type TokenRefusal = 'malformed' | 'unknown_alg' | 'unknown_key' | 'bad_mac' | 'expired';

export type TokenVerification =
  | { readonly ok: true; readonly payload: VerifiedTokenPayload }
  | { readonly ok: false; readonly reason: Exclude<TokenRefusal, 'expired'> }
  /** Authentic but past its `expiresAt`; the payload says which interrupt it named. */
  | { readonly ok: false; readonly reason: 'expired'; readonly payload: VerifiedTokenPayload };

function mac(secret: Buffer, encodedPayload: string): Buffer {
  return createHmac('sha256', secret).update(encodedPayload, 'ascii').digest();
}

/**
 * Signs `claims` with the ring's active key. Scheme `v1` (a run created under major 1):
 * `base64url(payload) + "." + base64url(HMAC-SHA256(secret, base64url(payload)))`, where the
 * payload is `{v: 1, alg: "HS256", kid, runId, nodeId, interruptId, expiresAt, intent}` in
 * canonical JSON. Scheme `ow2` (a run created under major 2, identity.md §4):
 * `ow2.hs256.<kid>.<base64url(claims)>.<base64url(HMAC-SHA256(secret, everything before it))>`,
 * the claims `{runId, nodeId, interruptId, expiresAt, intent}` in canonical JSON; the MAC covers
 * the header, so `alg` and `kid` cannot be changed without it. Deterministic: the same claims,
 * scheme and key give the same token.
 *
 * @throws Error when the ring's active key is missing or retired, or (ow2) its id is `legacy` or
 *   outside the `keyId` grammar.
 * @example
 * const token = signToken({ runId, nodeId, interruptId, expiresAt, intent: 'resolve' }, ring);
 */
export function signToken(claims: TokenClaims, ring: KeyRing, scheme: TokenScheme = 'v1'): string {
  const { kid, secret } = signingKey(ring);
  if (scheme === 'ow2') {
    if (kid === LEGACY_TOKEN_KID || !KEY_ID.test(kid))
      throw new Error(`the active token key id ${kid} cannot sign an ow2 token`);
    const input = `${OW2_TOKEN_PREFIX}${INTERRUPT_TOKEN_ALGS[0]}.${kid}.${toBase64Url(serializeClaims(claims))}`;
    return `${input}.${toBase64Url(mac(secret, input))}`;
  }
  const payload: TokenPayload = { v: 1, alg: TOKEN_ALGORITHM, kid, ...claims };
  const encoded = toBase64Url(serializePayload(payload));
  return `${encoded}.${toBase64Url(mac(secret, encoded))}`;
}

/**
 * Which scheme a token claims: `ow2` when it starts with `ow2.`, `v1` otherwise (identity.md §4:
 * the rule is the prefix, never a segment count).
 */
export function tokenSchemeOf(token: string): TokenScheme {
  return token.startsWith(OW2_TOKEN_PREFIX) ? 'ow2' : 'v1';
}

/**
 * The `kid` a verified token resolves under in identity.md §4's terms: an `ow2.` token's header
 * `kid`; `legacy` for a v1 token (whose own payload `kid` still selects the ring secret that
 * verifies it, ADR 0007).
 */
export function schemeKidOf(payload: VerifiedTokenPayload): string {
  return payload.v === 2 ? payload.kid : LEGACY_TOKEN_KID;
}

/**
 * Verifies a token strictly. An `ow2.`-prefixed token is verified as {@link verifyOw2Token} says;
 * any other is a v1 token (`kid: legacy` in identity.md §4's terms): exactly one dot; both parts
 * canonical unpadded base64url; the payload
 * a canonical JSON object with exactly the payload's fields and types; a known algorithm and a
 * known, non-retired key id; a MAC equal to the expected one, compared in constant time with
 * `timingSafeEqual` over buffers of equal length; and `now` before `expiresAt`.
 *
 * Checks run in that order, so a forged token never learns whether it merely expired.
 */
export function verifyToken(token: unknown, ring: KeyRing, now: Date | number): TokenVerification {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
  if (tokenSchemeOf(token) === 'ow2') return verifyOw2Token(token, ring, now);
  const parts = token.split('.');
  if (parts.length !== 2) return { ok: false, reason: 'malformed' };
  const [encodedPayload, encodedMac] = parts as [string, string];
  const payloadBytes = encodedPayload === '' ? undefined : fromBase64Url(encodedPayload);
  if (!payloadBytes) return { ok: false, reason: 'malformed' };
  const text = payloadBytes.toString('utf8');
  // Invalid UTF-8 decodes to U+FFFD; the byte round trip catches it.
  if (!Buffer.from(text, 'utf8').equals(payloadBytes)) return { ok: false, reason: 'malformed' };
  const payload = parsePayload(text);
  if (!payload) return { ok: false, reason: 'malformed' };
  const presented = fromBase64Url(encodedMac);
  if (!presented || presented.length !== MAC_BYTES) return { ok: false, reason: 'malformed' };
  const secret = verificationSecret(ring, payload.kid);
  if (!secret) return { ok: false, reason: 'unknown_key' };
  if (!timingSafeEqual(mac(secret, encodedPayload), presented)) return { ok: false, reason: 'bad_mac' };
  return unexpired(payload, now);
}

/**
 * Verifies an `ow2.<alg>.<kid>.<payload>.<mac>` token (identity.md §4, RFC 0170 §E.1), in order:
 * the shape (an `alg` segment, a `kid` of the `keyId` grammar — it may hold dots, so it is
 * everything between `alg` and the last two segments — and canonical unpadded base64url payload
 * and MAC); `alg` one of `INTERRUPT_TOKEN_ALGS` (else `unknown_alg`); `kid` a key the ring holds,
 * never `legacy` (else `unknown_key`); the payload exactly the canonical claims; the MAC, an
 * HMAC-SHA256 over everything before the last dot, in constant time; then expiry.
 */
function verifyOw2Token(token: string, ring: KeyRing, now: Date | number): TokenVerification {
  const segments = token.slice(OW2_TOKEN_PREFIX.length).split('.');
  if (segments.length < 4) return { ok: false, reason: 'malformed' };
  const alg = segments[0]!;
  const kid = segments.slice(1, -2).join('.');
  const [encodedPayload, encodedMac] = segments.slice(-2) as [string, string];
  if (!/^[A-Za-z0-9]{1,16}$/.test(alg) || !KEY_ID.test(kid)) return { ok: false, reason: 'malformed' };
  if (!(INTERRUPT_TOKEN_ALGS as readonly string[]).includes(alg)) return { ok: false, reason: 'unknown_alg' };
  const secret = kid === LEGACY_TOKEN_KID ? undefined : verificationSecret(ring, kid);
  if (!secret) return { ok: false, reason: 'unknown_key' };
  const payloadBytes = encodedPayload === '' ? undefined : fromBase64Url(encodedPayload);
  if (!payloadBytes) return { ok: false, reason: 'malformed' };
  const text = payloadBytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(payloadBytes)) return { ok: false, reason: 'malformed' };
  const claims = parseClaims(text);
  if (!claims) return { ok: false, reason: 'malformed' };
  const presented = fromBase64Url(encodedMac);
  if (!presented || presented.length !== MAC_BYTES) return { ok: false, reason: 'malformed' };
  const input = token.slice(0, token.length - encodedMac.length - 1);
  if (!timingSafeEqual(mac(secret, input), presented)) return { ok: false, reason: 'bad_mac' };
  const payload: Ow2TokenPayload = { v: 2, alg, kid, ...claims };
  return unexpired(payload, now);
}

function unexpired(payload: VerifiedTokenPayload, now: Date | number): TokenVerification {
  const at = typeof now === 'number' ? now : now.getTime();
  if (Date.parse(payload.expiresAt) <= at) return { ok: false, reason: 'expired', payload };
  return { ok: true, payload };
}

/**
 * Reads a token's payload WITHOUT verifying it, or `undefined` when it does not even parse. Only
 * for routing and log correlation; never for a decision.
 */
export function peekTokenPayload(token: string): TokenClaims | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const ow2 = tokenSchemeOf(token) === 'ow2';
  const encodedPayload = ow2 ? token.split('.').at(-2) : token.split('.')[0];
  const bytes = encodedPayload ? fromBase64Url(encodedPayload) : undefined;
  if (!bytes) return undefined;
  return ow2 ? parseClaims(bytes.toString('utf8')) : parsePayload(bytes.toString('utf8'));
}

/** What may be logged of a token: its first 8 characters, never the whole. */
export function tokenFingerprint(token: string): string {
  return `${token.slice(0, 8)}…`;
}
