import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { INTERRUPT_KINDS, MAX_CURSOR_LENGTH, MAX_ID_LENGTH, MAX_INTERRUPT_AGE_MS, type InterruptKind } from '@openwop/contracts';

/** Query of `GET /v1/interrupts`. */
export class ListInterruptsQueryDto {
  @IsOptional() @IsIn(INTERRUPT_KINDS) kind?: InterruptKind;

  /** Only interrupts pending at least this long. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(MAX_INTERRUPT_AGE_MS) minAgeMs?: number;

  /** Only interrupts pending at most this long. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(MAX_INTERRUPT_AGE_MS) maxAgeMs?: number;

  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) runId?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;

  /** Opaque cursor from the previous page's `nextCursor`. */
  @IsOptional() @IsString() @MaxLength(MAX_CURSOR_LENGTH) cursor?: string;
}
