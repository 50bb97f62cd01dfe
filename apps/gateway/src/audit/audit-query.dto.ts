import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_SEQUENCE } from '@openwop/contracts';
import { InstantQuery } from '../common/instant-query.transform';
import { Describe } from '../common/describe.decorator';

/** Most records one `GET /v1/audit` answers; the next page is `after=<last seq>`. */
export const MAX_AUDIT_LIMIT = 10_000;
export const DEFAULT_AUDIT_LIMIT = 1_000;

/** Query of `GET /v1/audit`: a window of the caller's tenant's chain, by time and by seq. */
export class AuditQueryDto {
  @Describe(
    'Decisions at or after this instant: an RFC 3339 date-time with a zone (`2026-01-31T09:00:00Z`); any other spelling is 400.',
  )
  @IsOptional()
  @InstantQuery()
  from?: Date;
  @Describe('Decisions before this instant (RFC 3339 date-time, as `from`).')
  @IsOptional()
  @InstantQuery()
  to?: Date;
  @Describe('Only records with a greater seq (keyset: the last seq of the previous page).')
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_SEQUENCE)
  after?: number;
  @Describe(`Most records in this answer (default ${DEFAULT_AUDIT_LIMIT}).`)
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_AUDIT_LIMIT)
  limit?: number;
}
