import { Transform } from 'class-transformer';

/**
 * Turns a query-string integer (`"42"`, `"-1"`) into a number and leaves anything else as it came,
 * so `@IsInt()` rejects `"abc"`, `""`, `"1.5"` or a repeated parameter instead of coercing them.
 */
export function IntQuery(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value,
  );
}
