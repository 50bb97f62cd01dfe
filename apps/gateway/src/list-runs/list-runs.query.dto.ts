import { Type } from 'class-transformer';
import { MAX_CURSOR_LENGTH, MAX_ID_LENGTH } from '@openwop/contracts';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Describe } from '../common/describe.decorator';

/** Run statuses a listing may filter on (`run-snapshot.schema.json`). */
export const LISTED_RUN_STATUSES = [
  'pending',
  'running',
  'waiting-approval',
  'waiting-input',
  'waiting-external',
  'paused',
  'completed',
  'failed',
  'cancelled',
] as const;

/** Query of `GET /v1/runs`. */
export class ListRunsQueryDto {
  @Describe('Only runs in this status.') @IsOptional() @IsIn(LISTED_RUN_STATUSES) status?: string;

  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) workflowId?: string;

  @Describe('Page size.') @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;

  @Describe("Opaque cursor: the previous page's `nextCursor`.")
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  cursor?: string;
}
