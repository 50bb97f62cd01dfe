import { parseKeysetCursor, type KeysetPosition } from '@openwop/contracts';
import { ApiError } from './api.error';

/**
 * The contracts' {@link parseKeysetCursor}, refusing anything else with `400 validation_error` at
 * `/cursor`.
 *
 * @throws ApiError for a cursor this host did not issue.
 */
export function decodeKeysetCursor(cursor: string): KeysetPosition {
  const position = parseKeysetCursor(cursor);
  if (position) return position;
  throw ApiError.validation('Malformed cursor.', [
    { path: '/cursor', message: 'not a cursor this host issued' },
  ]);
}
