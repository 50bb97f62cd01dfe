import { IsOptional, IsString, MaxLength } from 'class-validator';
import { Describe } from '../common/describe.decorator';

/** Longest cancel `reason`: it is stored on the run's `run.cancelled` event. */
export const MAX_CANCEL_REASON_LENGTH = 1000;

/** Body of `POST /v1/runs/{runId}/cancel` (optional; unknown fields are rejected). */
export class CancelRunRequestDto {
  @Describe('Why the run is cancelled.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CANCEL_REASON_LENGTH)
  reason?: string;
}
