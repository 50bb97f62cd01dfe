import { SetMetadata } from '@nestjs/common';

/** Metadata key of the top-level fields of a route's success body that are shown once. */
export const SHOWN_ONCE_FIELDS = 'openwop:shown-once-fields';

/**
 * Fields of the route's success body that only the request that created them may see (a
 * generated secret): the idempotency record keeps the answer without them, so a replay under the
 * same `Idempotency-Key` answers the same status and body with these fields left out, whoever
 * sends it, and no copy of them lies in `idempotency_records`, its WAL or its backups.
 *
 * @example
 * ```ts
 * @Post('/v1/webhooks')
 * @ShownOnce('secret')
 * register(...) {}
 * ```
 */
export function ShownOnce(...fields: [string, ...string[]]): MethodDecorator {
  return SetMetadata(SHOWN_ONCE_FIELDS, fields);
}
