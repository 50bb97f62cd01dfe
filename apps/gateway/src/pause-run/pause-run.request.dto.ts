import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_PAUSE_REASON_LENGTH, PAUSE_DRAIN_POLICIES, type PauseDrainPolicy } from '@openwop/contracts';
import { Describe } from '../common/describe.decorator';

/** Body of `POST /v1/runs/{runId}:pause` (optional; unknown fields are rejected). */
export class PauseRunRequestDto {
  @Describe('Why the run is paused; kept on the `run.paused` event.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PAUSE_REASON_LENGTH)
  reason?: string;

  @Describe('What the run does with the node it is executing; `drain-current-node` by default.')
  @IsOptional()
  @IsIn(PAUSE_DRAIN_POLICIES)
  drainPolicy?: PauseDrainPolicy;
}

/** Body of `POST /v1/runs/{runId}:resume` (optional; unknown fields are rejected). */
export class ResumeRunRequestDto {
  @Describe('Why the run is resumed; kept on the `run.resumed` event.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PAUSE_REASON_LENGTH)
  reason?: string;
}
