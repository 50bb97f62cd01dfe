import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { parseInstant } from '@openwop/contracts';

/** What a refused timestamp parameter is told. */
export const INSTANT_MESSAGE = 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T09:00:00Z';

/**
 * A query parameter that takes a timestamp: read once, at the edge, with the contracts'
 * {@link parseInstant} (RFC 3339 `date-time` only) into a `Date`, so a handler and its query get an
 * instant, never text the database would have to read. Anything else (`2026`, `2026-W01-1`,
 * `2026-001T25`, a repeated parameter) stays as it came and is refused: `400 validation_error` at
 * `/<name>`.
 */
export function InstantQuery(): PropertyDecorator {
  const parse = Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (parseInstant(value) ?? value) : value,
  );
  const check = ValidateBy({
    name: 'isInstant',
    validator: {
      validate: (value: unknown) => value instanceof Date,
      defaultMessage: () => INSTANT_MESSAGE,
    },
  });
  return (target, key) => {
    parse(target, key);
    check(target, key);
  };
}
