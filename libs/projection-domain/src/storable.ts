import type { RunEventDoc } from '@openwop/contracts';

/**
 * A number for a `double precision` column derived from an event: the value when it is a finite
 * number (every JSON number is), else `fallback`. The event keeps the value as it came in its
 * `doc`; the typed column is only an index of it, so it never refuses the event.
 */
export function storableNumber<T extends number | null>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** Why a run's projection stopped: the event that could not be stored, and the reason. */
export interface ProjectionError {
  readonly eventId: string;
  readonly sequence: number;
  readonly type: string;
  readonly reason: string;
  readonly at: string;
}

/** Longest reason kept (a database error can quote a whole statement). */
const MAX_REASON = 500;

/** The {@link ProjectionError} for `event`, failed with `error` at `at`. */
export function projectionErrorOf(event: RunEventDoc, error: unknown, at: string): ProjectionError {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return {
    eventId: event.eventId,
    sequence: event.sequence,
    type: event.type,
    reason: text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text,
    at,
  };
}
