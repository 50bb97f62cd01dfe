/**
 * The per-subscription circuit breaker of webhooks.md §Circuit breaker, as a pure state machine:
 * 4 consecutive failures open it for an hour; then the next delivery is a probe (half-open); the
 * probe's success closes it, its failure opens it again. 100 failures within the failure window
 * (7 days from the window's first failure) mark the subscription `failed`.
 */

export interface BreakerPolicy {
  readonly failureThreshold: number;
  readonly cooldownMs: number;
  readonly windowMs: number;
  readonly windowFailureLimit: number;
  /** A probe that never reports back (its process died) stops blocking after this long. */
  readonly probeLeaseMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = {
  failureThreshold: 4,
  cooldownMs: 60 * 60 * 1000,
  windowMs: 7 * 24 * 60 * 60 * 1000,
  windowFailureLimit: 100,
  probeLeaseMs: 60 * 1000,
};

export type BreakerPhase = 'closed' | 'open' | 'half-open';

export interface BreakerState {
  readonly phase: BreakerPhase;
  readonly consecutiveFailures: number;
  /** When it opened (open), or when the probe went out (half-open); ms since the epoch. */
  readonly since: number | null;
  readonly windowStartedAt: number | null;
  readonly windowFailures: number;
}

export const CLOSED_BREAKER: BreakerState = {
  phase: 'closed',
  consecutiveFailures: 0,
  since: null,
  windowStartedAt: null,
  windowFailures: 0,
};

/** May a delivery go out now, and in what state does that leave the breaker. */
export type BreakerGate =
  | { readonly allow: true; readonly probe: boolean; readonly next: BreakerState }
  | { readonly allow: false; readonly retryAt: number; readonly next: BreakerState };

export function breakerGate(
  b: BreakerState,
  now: number,
  policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
): BreakerGate {
  switch (b.phase) {
    case 'closed':
      return { allow: true, probe: false, next: b };
    case 'open': {
      const reopensAt = (b.since ?? now) + policy.cooldownMs;
      if (now < reopensAt) return { allow: false, retryAt: reopensAt, next: b };
      return { allow: true, probe: true, next: { ...b, phase: 'half-open', since: now } };
    }
    case 'half-open': {
      // One probe at a time; a probe whose process died is given up after its lease.
      const leaseEnds = (b.since ?? now) + policy.probeLeaseMs;
      if (now < leaseEnds) return { allow: false, retryAt: leaseEnds, next: b };
      return { allow: true, probe: true, next: { ...b, since: now } };
    }
  }
}

export interface BreakerVerdict {
  readonly next: BreakerState;
  /** The failure window is exhausted: the subscription is `failed` until registered again. */
  readonly subscriptionFailed: boolean;
}

/** The breaker after one delivery attempt succeeded (`ok`) or failed, at `now`. */
export function breakerRecord(
  b: BreakerState,
  ok: boolean,
  now: number,
  policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
): BreakerVerdict {
  if (ok)
    return {
      next: { ...b, phase: 'closed', consecutiveFailures: 0, since: null },
      subscriptionFailed: false,
    };
  const inWindow = b.windowStartedAt !== null && now - b.windowStartedAt < policy.windowMs;
  const windowStartedAt = inWindow ? b.windowStartedAt : now;
  const windowFailures = (inWindow ? b.windowFailures : 0) + 1;
  const consecutiveFailures = b.consecutiveFailures + 1;
  const opens = b.phase === 'half-open' || consecutiveFailures >= policy.failureThreshold;
  const next: BreakerState = {
    phase: opens ? 'open' : 'closed',
    consecutiveFailures,
    since: opens ? now : null,
    windowStartedAt,
    windowFailures,
  };
  return { next, subscriptionFailed: windowFailures >= policy.windowFailureLimit };
}
