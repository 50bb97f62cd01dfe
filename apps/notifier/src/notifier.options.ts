import {
  DEFAULT_BREAKER_POLICY,
  DEFAULT_DURABLE_RETRY,
  DEFAULT_RETENTION,
  parseAllowedHosts,
  type AllowedHosts,
  type BreakerPolicy,
  type RetentionPolicy,
  type RetryPolicy,
} from '@openwop/webhook-domain';

/** DI token of {@link NotifierOptions}. */
export const NOTIFIER_OPTIONS = Symbol('NOTIFIER_OPTIONS');

export interface NotifierOptions {
  /** Host names that may take `http:` and private addresses (`WEBHOOK_ALLOW_HOSTS`). */
  readonly allowedHosts: AllowedHosts;
  /** Per-attempt timeout (webhooks.md: 5 s). */
  readonly deliveryTimeoutMs: number;
  /** How long a claimed attempt is ours; after it, any instance may take the delivery up again. */
  readonly leaseMs: number;
  /** Mean poll interval for due deliveries (jittered); a consumed event also wakes the worker at once. */
  readonly pollMs: number;
  /** Deliveries claimed per transaction. */
  readonly batchSize: number;
  readonly durableRetry: RetryPolicy;
  readonly breaker: BreakerPolicy;
  /** How long settled deliveries are kept before the sweep deletes them. */
  readonly retention: RetentionPolicy;
  readonly userAgent: string;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

/**
 * Reads `WEBHOOK_ALLOW_HOSTS`, `WEBHOOK_DELIVERY_TIMEOUT_MS` (5000), `WEBHOOK_LEASE_MS` (timeout +
 * 5000), `WEBHOOK_POLL_MS` (500), `WEBHOOK_MAX_ATTEMPTS` (8), `WEBHOOK_RETRY_BASE_MS` (1000),
 * `WEBHOOK_RETRY_MAX_MS` (1 h) and `WEBHOOK_BREAKER_COOLDOWN_MS` (1 h).
 * @throws Error on a value that is not a positive integer.
 */
export function notifierOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  version = '0.1.0',
): NotifierOptions {
  const deliveryTimeoutMs = int(env, 'WEBHOOK_DELIVERY_TIMEOUT_MS', 5000);
  return {
    allowedHosts: parseAllowedHosts(env.WEBHOOK_ALLOW_HOSTS),
    deliveryTimeoutMs,
    leaseMs: Math.max(int(env, 'WEBHOOK_LEASE_MS', deliveryTimeoutMs + 5000), deliveryTimeoutMs + 1000),
    pollMs: int(env, 'WEBHOOK_POLL_MS', 500),
    batchSize: 20,
    durableRetry: {
      maxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS', DEFAULT_DURABLE_RETRY.maxAttempts),
      baseDelayMs: int(env, 'WEBHOOK_RETRY_BASE_MS', DEFAULT_DURABLE_RETRY.baseDelayMs),
      maxDelayMs: int(env, 'WEBHOOK_RETRY_MAX_MS', DEFAULT_DURABLE_RETRY.maxDelayMs),
    },
    breaker: {
      ...DEFAULT_BREAKER_POLICY,
      cooldownMs: int(env, 'WEBHOOK_BREAKER_COOLDOWN_MS', DEFAULT_BREAKER_POLICY.cooldownMs),
    },
    retention: {
      settledMs: int(env, 'WEBHOOK_RETAIN_DELIVERED_MS', DEFAULT_RETENTION.settledMs),
      deadMs: int(env, 'WEBHOOK_RETAIN_DEAD_MS', DEFAULT_RETENTION.deadMs),
      batchSize: DEFAULT_RETENTION.batchSize,
      sweepEveryMs: int(env, 'WEBHOOK_PRUNE_EVERY_MS', DEFAULT_RETENTION.sweepEveryMs),
    },
    userAgent: `openwop-webhook-dispatcher/${version}`,
  };
}
