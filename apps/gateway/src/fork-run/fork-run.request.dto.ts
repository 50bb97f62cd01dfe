import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FORK_MODES, type ForkMode } from '@openwop/contracts';
import { IsIn, IsInt, IsObject, IsOptional, Min } from 'class-validator';

/** Body of `POST /v1/runs/{runId}:fork` (replay.md §Endpoint). Unknown fields are rejected. */
export class ForkRunRequestDto {
  @ApiProperty({
    enum: FORK_MODES,
    description: '`replay` re-executes deterministically; `branch` re-executes with a `runOptionsOverlay`.',
  })
  @IsIn(FORK_MODES)
  mode!: ForkMode;

  @ApiPropertyOptional({
    minimum: 0,
    description:
      'Inclusive: events `< fromSeq` are fixed history, `>= fromSeq` re-executed. Required for `branch`; `0` by default for `replay`.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  fromSeq?: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      "`branch` only: RunOptions (`configurable`, `tags`, `metadata`) over the source run's. Must be omitted or empty for `replay`.",
  })
  @IsOptional()
  @IsObject()
  runOptionsOverlay?: Record<string, unknown>;
}
