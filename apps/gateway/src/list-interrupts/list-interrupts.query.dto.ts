import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  INTERRUPT_KINDS,
  MAX_CURSOR_LENGTH,
  MAX_ID_LENGTH,
  MAX_INTERRUPT_AGE_MS,
  type InterruptKind,
} from '@openwop/contracts';
import { Describe } from '../common/describe.decorator';

/** Query of `GET /v1/interrupts` (the approver's inbox, ADR 0035). */
export class ListInterruptsQueryDto {
  @IsOptional() @IsIn(INTERRUPT_KINDS) kind?: InterruptKind;

  @Describe('Only interrupts pending at least this long.')
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_INTERRUPT_AGE_MS)
  minAgeMs?: number;

  @Describe("The same as `minAgeMs` (the bulk filter's spelling); when both are given, the larger wins.")
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_INTERRUPT_AGE_MS)
  olderThanMs?: number;

  @Describe('Only interrupts pending at most this long.')
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_INTERRUPT_AGE_MS)
  maxAgeMs?: number;

  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) runId?: string;

  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) workflowId?: string;

  @Describe(
    'Only interrupts whose `approversList` names this principal, or a `group:<name>` the key configuration gives it.',
  )
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  approver?: string;

  @Describe('Only interrupts this principal holds a live claim on.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  assignee?: string;

  @Describe('`true`: only interrupts someone holds a live claim on; `false`: only unclaimed ones.')
  @IsOptional()
  @IsIn(['true', 'false'])
  claimed?: 'true' | 'false';

  @Describe('`age` (default): youngest first; `-age`: oldest first (the SLA order).')
  @IsOptional()
  @IsIn(['age', '-age'])
  sort?: 'age' | '-age';

  @Describe('Page size.') @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;

  @Describe("Opaque cursor: the previous page's `nextCursor` (of the same query).")
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  cursor?: string;
}
