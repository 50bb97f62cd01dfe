import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_PAUSE_REASON_LENGTH, PAUSE_DRAIN_POLICIES, type PauseDrainPolicy } from '@openwop/contracts';

/** Body of `POST /v1/runs/{runId}:pause` (optional; unknown fields are rejected). */
export class PauseRunRequestDto {
  @ApiPropertyOptional({
    description: 'Why the run is paused; kept on the `run.paused` event.',
    maxLength: MAX_PAUSE_REASON_LENGTH,
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PAUSE_REASON_LENGTH)
  reason?: string;

  @ApiPropertyOptional({ enum: PAUSE_DRAIN_POLICIES, default: 'drain-current-node' })
  @IsOptional()
  @IsIn(PAUSE_DRAIN_POLICIES)
  drainPolicy?: PauseDrainPolicy;
}

/** Body of `POST /v1/runs/{runId}:resume` (optional; unknown fields are rejected). */
export class ResumeRunRequestDto {
  @ApiPropertyOptional({
    description: 'Why the run is resumed; kept on the `run.resumed` event.',
    maxLength: MAX_PAUSE_REASON_LENGTH,
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PAUSE_REASON_LENGTH)
  reason?: string;
}
