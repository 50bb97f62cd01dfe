/**
 * The latest instant the host stores: 9999-12-31T23:59:59.999Z. JavaScript dates reach year
 * 275760 and Postgres' `timestamptz` year 294276, but past year 9999 an ISO string needs the
 * expanded `+YYYYYY` form, which Postgres does not parse. A deadline further away than this
 * is, for every purpose, never; it is stored as this instant.
 */
export const LATEST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The ISO instant `afterMs` milliseconds after `fromMs`, clamped to [1970-01-01, {@link LATEST_INSTANT_MS}]:
 * any finite or infinite `afterMs` (a `timeoutMs` of 1e300 included) gives a date every store holds.
 */
export function instantAfter(fromMs: number, afterMs: number): string {
  const at = fromMs + afterMs;
  const clamped = Number.isNaN(at) ? LATEST_INSTANT_MS : Math.min(Math.max(at, 0), LATEST_INSTANT_MS);
  return new Date(clamped).toISOString();
}
