import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The one signature scheme of webhooks.md: HMAC-SHA256 over `{timestamp}.{rawBody}`. */
export const SIGNATURE_ALGORITHM = 'v1';

/** Subscribers reject a timestamp further than this from their clock (webhooks.md §Verification recipe). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * A fresh subscription secret: 32 random bytes as 64 hex characters. `random` is injectable so
 * tests are deterministic; production passes nothing.
 */
export function newWebhookSecret(random: (n: number) => Buffer = randomBytes): string {
  return random(32).toString('hex');
}

/** The first 8 hex characters of `sha256(secret)`: what logs and reads show instead of the secret. */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8);
}

/** `sha256={hex}` of HMAC-SHA256(`{timestamp}.{rawBody}`, secret). */
export function signDelivery(secret: string, timestampSeconds: number, rawBody: string): string {
  const hex = createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
  return `sha256=${hex}`;
}

/**
 * The subscriber side of the recipe: the signature matches (constant-time compare) and the
 * timestamp is within {@link SIGNATURE_TOLERANCE_SECONDS} of `nowSeconds`.
 */
export function verifyDelivery(
  secret: string,
  headers: { readonly timestamp: string | undefined; readonly signature: string | undefined },
  rawBody: string,
  nowSeconds: number,
): boolean {
  const ts = Number(headers.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const given = (headers.signature ?? '').replace(/^sha256=/, '');
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = signDelivery(secret, ts, rawBody).slice('sha256='.length);
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}
