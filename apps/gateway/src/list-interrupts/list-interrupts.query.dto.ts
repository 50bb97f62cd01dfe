import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { INTERRUPT_KINDS, type InterruptKind } from '@openwop/contracts';

/** Longest age filter (100 years): `now - age` must stay a timestamp Postgres can compare. */
export const MAX_AGE_MS = 3_155_760_000_000;

/** Query of `GET /v1/interrupts`. */
export class ListInterruptsQueryDto {
  @IsOptional() @IsIn(INTERRUPT_KINDS) kind?: InterruptKind;

  /** Only interrupts pending at least this long. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(MAX_AGE_MS) minAgeMs?: number;

  /** Only interrupts pending at most this long. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(MAX_AGE_MS) maxAgeMs?: number;

  @IsOptional() @IsString() runId?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;

  /** Opaque cursor from the previous page's `nextCursor`. */
  @IsOptional() @IsString() cursor?: string;
}
