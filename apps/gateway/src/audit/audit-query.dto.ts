import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_SEQUENCE } from '@openwop/contracts';
import { InstantQuery } from '../common/instant-query.transform';

/** Most records one `GET /v1/audit` answers; the next page is `after=<last seq>`. */
export const MAX_AUDIT_LIMIT = 10_000;
export const DEFAULT_AUDIT_LIMIT = 1_000;

/** Query of `GET /v1/audit`: a window of the caller's tenant's chain, by time and by seq. */
export class AuditQueryDto {
  /** Records decided at or after this instant (RFC 3339 date-time; see {@link InstantQuery}). */
  @IsOptional() @InstantQuery() from?: Date;
  /** Records decided before this instant (RFC 3339 date-time). */
  @IsOptional() @InstantQuery() to?: Date;
  /** Records with a greater seq (keyset: the last seq of the previous page). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(MAX_SEQUENCE) after?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_AUDIT_LIMIT) limit?: number;
}
