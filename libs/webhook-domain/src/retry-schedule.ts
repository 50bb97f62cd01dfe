/**
 * When a failed delivery is tried again. Best-effort subscriptions (the spec's default) get one
 * attempt; durable ones (RFC 0083) retry with capped exponential backoff and full jitter, then go to
 * the dead letters.
 */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const BEST_EFFORT_RETRY: RetryPolicy = { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 };

export const DEFAULT_DURABLE_RETRY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 1000,
  maxDelayMs: 60 * 60 * 1000,
};

/**
 * After attempt number `attempt` (1-based) failed: the delay before the next one, or `null` when
 * the attempts are spent. `random` in [0, 1) spreads retries of many deliveries (full jitter over
 * the upper half of the backoff, so the delay never drops below half of it).
 */
export function nextRetryDelayMs(attempt: number, policy: RetryPolicy, random: number): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(backoff / 2 + (backoff / 2) * Math.min(Math.max(random, 0), 1));
}
