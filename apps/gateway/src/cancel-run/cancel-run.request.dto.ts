import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** Longest cancel `reason`: it is stored on the run's `run.cancelled` event. */
export const MAX_CANCEL_REASON_LENGTH = 1000;

/** Body of `POST /v1/runs/{runId}/cancel` (optional; unknown fields are rejected). */
export class CancelRunRequestDto {
  @ApiPropertyOptional({ description: 'Why the run is cancelled.', maxLength: MAX_CANCEL_REASON_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CANCEL_REASON_LENGTH)
  reason?: string;
}
