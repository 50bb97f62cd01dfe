import { DEFAULT_MAX_BATCH, type IncomingMessage, type MessageHandler } from '../bus.port';

/** Attempts per message before it is dead-lettered, when a subscription does not say. */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** Backoff before retry `n` (n = 1 after the first failure): 10, 20, 40, 80, then 100 ms. */
export function retryBackoffMs(failures: number): number {
  return Math.min(100, 10 * 2 ** (failures - 1));
}

export type DeliveryOutcome =
  | { readonly kind: 'handled'; readonly attempts: number }
  | { readonly kind: 'exhausted'; readonly attempts: number; readonly error: unknown }
  /** The consumer died between attempts: nothing may be committed. */
  | { readonly kind: 'abandoned'; readonly attempts: number };

export interface DeliveryArgs {
  readonly handler: MessageHandler;
  /** Builds a fresh copy of the message for each attempt, so a handler's mutation never leaks into a retry. */
  readonly message: (attempt: number) => IncomingMessage;
  readonly maxAttempts: number;
  /** Checked before each retry; false abandons the message uncommitted (crash). */
  readonly alive?: () => boolean;
  /** Runs during the backoff before each retry (Kafka heartbeats here; a throw aborts the delivery). */
  readonly beforeRetry?: () => Promise<void>;
  readonly backoffMs?: (failures: number) => number;
  /**
   * Failures of the infrastructure rather than of the message (the database restarting): they are
   * retried without using up `maxAttempts`, for up to {@link TRANSIENT_BUDGET_MS} in all, so an
   * outage delays the partition instead of dead-lettering accepted commands.
   */
  readonly isTransient?: (error: unknown) => boolean;
  /**
   * How long, in all, transient failures are retried without counting (default
   * {@link TRANSIENT_BUDGET_MS}; `Infinity`: until `alive()` turns false).
   */
  readonly transientBudgetMs?: number;
}

/** How long, in all, one message's transient failures are retried before they count as failures. */
export const TRANSIENT_BUDGET_MS = 60_000;

/** Validates a subscription's `transientBudgetMs` (a number >= 0, `Infinity` allowed). */
export function resolveTransientBudgetMs(budgetMs: number | undefined): number {
  const value = budgetMs ?? TRANSIENT_BUDGET_MS;
  if (Number.isNaN(value) || value < 0) throw new RangeError(`transientBudgetMs must be >= 0, got ${value}`);
  return value;
}

/** Pause before a retry after a transient failure: 50, 100, 200, … capped at 1 s. */
function transientBackoffMs(calls: number): number {
  return Math.min(1_000, 50 * 2 ** Math.min(calls - 1, 5));
}

/**
 * Runs a handler up to `maxAttempts` times in place (the partition waits), with a small backoff;
 * transient failures (see {@link DeliveryArgs.isTransient}) are retried without counting.
 * Never swallows: the caller dead-letters an `exhausted` outcome before it commits.
 */
export async function deliverWithRetries(args: DeliveryArgs): Promise<DeliveryOutcome> {
  const backoff = args.backoffMs ?? retryBackoffMs;
  const budgetMs = args.transientBudgetMs ?? TRANSIENT_BUDGET_MS;
  let failures = 0;
  let transientWaitedMs = 0;
  for (let calls = 1; ; calls++) {
    let error: unknown;
    try {
      await args.handler(args.message(calls));
      return { kind: 'handled', attempts: calls };
    } catch (e) {
      error = e;
    }
    const transient = transientWaitedMs < budgetMs && (args.isTransient?.(error) ?? false);
    if (!transient) failures += 1;
    if (failures >= args.maxAttempts) return { kind: 'exhausted', attempts: calls, error };
    const wait = transient ? transientBackoffMs(calls) : backoff(failures);
    if (transient) transientWaitedMs += wait;
    await delay(wait);
    if (args.alive && !args.alive()) return { kind: 'abandoned', attempts: calls };
    await args.beforeRetry?.();
  }
}

/**
 * Runs `step` until it succeeds, waiting 50 ms, 100 ms, … (capped at 1 s) between tries, while
 * `alive()` holds; true when it succeeded, false when the consumer stopped first. For work that must
 * not be given up while the consumer lives, such as the hook of a message already set aside (on
 * Kafka such a message comes back; an in-memory log has nobody to redeliver it).
 */
export async function retryWhileAlive(
  step: () => Promise<void>,
  alive: () => boolean,
  onFailure: (error: unknown, tries: number) => void,
): Promise<boolean> {
  for (let tries = 1; alive(); tries++) {
    try {
      await step();
      return true;
    } catch (error) {
      onFailure(error, tries);
    }
    await delay(transientBackoffMs(tries));
  }
  return false;
}

/** Validates a subscription's `maxAttempts` (an integer >= 1). */
export function resolveMaxAttempts(maxAttempts: number | undefined): number {
  const value = maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`maxAttempts must be an integer >= 1, got ${value}`);
  return value;
}

/** Validates a subscription's `maxBatch` (an integer >= 1). */
export function resolveMaxBatch(maxBatch: number | undefined): number {
  const value = maxBatch ?? DEFAULT_MAX_BATCH;
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`maxBatch must be an integer >= 1, got ${value}`);
  return value;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
