import { ApiError } from '../common/api.error';

/**
 * Whether `/events` should answer JSON: the client accepts `application/json` and does not ask
 * for `text/event-stream` (no Accept, or `*\/*`, means SSE — the canonical shape).
 */
export function wantsJson(accept: string | undefined): boolean {
  const value = (accept ?? '').toLowerCase();
  return value.includes('application/json') && !value.includes('text/event-stream');
}

/**
 * The sequence in a `Last-Event-ID` header (our SSE ids are event sequences), or `undefined`
 * when the header is absent or blank.
 *
 * @throws {@link ApiError} `validation_error` when it is not an integer ≥ -1.
 */
export function parseLastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const value = header.trim();
  if (!/^-?\d{1,15}$/.test(value) || Number(value) < -1) {
    throw ApiError.validation('Last-Event-ID must be the sequence of an event of this run.', [
      { path: '/headers/last-event-id', message: 'must be an integer >= -1' },
    ]);
  }
  return Number(value);
}
