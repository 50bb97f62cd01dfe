import { instantAfter } from '@openwop/kernel';

/** The default token lifetime (`interrupt.md` §"Signed resolution tokens": SHOULD be 30 minutes). */
export const DEFAULT_TOKEN_TTL_MS = 30 * 60 * 1000;

/**
 * When a token for an interrupt requested at `requestedAt` expires: `requestedAt + min(defaultTtlMs,
 * timeoutMs)`, so a token never outlives its interrupt's own deadline (RFC 0093 §B.1). It depends
 * only on the event, never on the clock, so re-minting from the log gives the same expiry.
 *
 * @throws RangeError when `requestedAt` is not a date or a duration is negative.
 */
export function tokenExpiry(
  requestedAt: string,
  timeoutMs: number | undefined,
  defaultTtlMs: number = DEFAULT_TOKEN_TTL_MS,
): string {
  const start = Date.parse(requestedAt);
  if (!Number.isFinite(start)) throw new RangeError(`requestedAt is not a date: ${requestedAt}`);
  if (!(defaultTtlMs >= 0) || (timeoutMs !== undefined && !(timeoutMs >= 0)))
    throw new RangeError('token lifetimes must be non-negative');
  return instantAfter(start, Math.min(defaultTtlMs, timeoutMs ?? Number.POSITIVE_INFINITY));
}
