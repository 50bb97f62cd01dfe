import { FORK_MODES, MAX_SEQUENCE, type ForkMode } from '@openwop/contracts';
import { IsIn, IsInt, IsObject, IsOptional, Max, Min } from 'class-validator';
import { Describe } from '../common/describe.decorator';
import { OverlayWithinRunLimits } from '../common/limits.validators';

/** Body of `POST /v1/runs/{runId}:fork` (replay.md §Endpoint). Unknown fields are rejected. */
export class ForkRunRequestDto {
  @Describe('`replay` re-executes deterministically; `branch` re-executes with a `runOptionsOverlay`.')
  @IsIn(FORK_MODES)
  mode!: ForkMode;

  @Describe(
    'Inclusive: events `< fromSeq` are fixed history, `>= fromSeq` re-executed. Required for `branch`; `0` by default for `replay`.',
  )
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_SEQUENCE)
  fromSeq?: number;

  @Describe(
    "`branch` only: RunOptions (`configurable`, `tags`, `metadata`) over the source run's. Must be omitted or empty for `replay`.",
  )
  @IsOptional()
  @IsObject()
  @OverlayWithinRunLimits()
  runOptionsOverlay?: Record<string, unknown>;
}
