/**
 * How long settled deliveries are kept (docs/adr/0028): delivered, failed (best effort) and skipped
 * rows for `settledMs` after they settled; dead letters (durable, out of attempts) for `deadMs`, so
 * an operator can list and replay them until then. Pending and in-flight rows are never pruned.
 */
export interface RetentionPolicy {
  readonly settledMs: number;
  readonly deadMs: number;
  /** Rows deleted per statement: a sweep never holds many locks or a long transaction. */
  readonly batchSize: number;
  /** Mean interval between sweeps of one instance. */
  readonly sweepEveryMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Delivered 7 days, dead letters 30 days, 1,000 rows a statement, a sweep a minute. */
export const DEFAULT_RETENTION: RetentionPolicy = {
  settledMs: 7 * DAY_MS,
  deadMs: 30 * DAY_MS,
  batchSize: 1000,
  sweepEveryMs: 60_000,
};
