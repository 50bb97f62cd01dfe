import { createHmac, timingSafeEqual } from 'node:crypto';
import { fromBase64Url, toBase64Url } from './base64url.util';
import { signingKey, TOKEN_ALGORITHM, verificationSecret, type KeyRing } from './key-ring';
import { parsePayload, serializePayload, type TokenClaims, type TokenPayload } from './token-payload';

/** Longest string {@link verifyToken} looks at; anything longer is malformed without parsing. */
export const MAX_TOKEN_LENGTH = 4096;

/** Bytes of an HMAC-SHA256 tag. */
const MAC_BYTES = 32;

/** Why a token does not verify. */
export type TokenRefusal = 'malformed' | 'unknown_key' | 'bad_mac' | 'expired';

export type TokenVerification =
  | { readonly ok: true; readonly payload: TokenPayload }
  | { readonly ok: false; readonly reason: Exclude<TokenRefusal, 'expired'> }
  /** Authentic but past its `expiresAt`; the payload says which interrupt it named. */
  | { readonly ok: false; readonly reason: 'expired'; readonly payload: TokenPayload };

function mac(secret: Buffer, encodedPayload: string): Buffer {
  return createHmac('sha256', secret).update(encodedPayload, 'ascii').digest();
}

/**
 * Signs `claims` with the ring's active key:
 * `base64url(payload) + "." + base64url(HMAC-SHA256(secret, base64url(payload)))`, where the
 * payload is `{v: 1, alg: "HS256", kid, runId, nodeId, interruptId, expiresAt, intent}` in
 * canonical JSON. Deterministic: the same claims and key give the same token.
 *
 * @throws Error when the ring's active key is missing or retired.
 * @example
 * const token = signToken({ runId, nodeId, interruptId, expiresAt, intent: 'resolve' }, ring);
 */
export function signToken(claims: TokenClaims, ring: KeyRing): string {
  const { kid, secret } = signingKey(ring);
  const payload: TokenPayload = { v: 1, alg: TOKEN_ALGORITHM, kid, ...claims };
  const encoded = toBase64Url(serializePayload(payload));
  return `${encoded}.${toBase64Url(mac(secret, encoded))}`;
}

/**
 * Verifies a token strictly: exactly one dot; both parts canonical unpadded base64url; the payload
 * a canonical JSON object with exactly the payload's fields and types; a known algorithm and a
 * known, non-retired key id; a MAC equal to the expected one, compared in constant time with
 * `timingSafeEqual` over buffers of equal length; and `now` before `expiresAt`.
 *
 * Checks run in that order, so a forged token never learns whether it merely expired.
 */
export function verifyToken(token: unknown, ring: KeyRing, now: Date | number): TokenVerification {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
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
  const at = typeof now === 'number' ? now : now.getTime();
  if (Date.parse(payload.expiresAt) <= at) return { ok: false, reason: 'expired', payload };
  return { ok: true, payload };
}

/**
 * Reads a token's payload WITHOUT verifying it, or `undefined` when it does not even parse. Only
 * for routing and log correlation; never for a decision.
 */
export function peekTokenPayload(token: string): TokenPayload | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const [encodedPayload] = token.split('.');
  const bytes = encodedPayload ? fromBase64Url(encodedPayload) : undefined;
  return bytes ? parsePayload(bytes.toString('utf8')) : undefined;
}

/** What may be logged of a token: its first 8 characters, never the whole. */
export function tokenFingerprint(token: string): string {
  return `${token.slice(0, 8)}…`;
}
