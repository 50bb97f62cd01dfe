import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
} from 'class-validator';
import { Describe } from '../common/describe.decorator';

/** Most run ids one bulk cancel takes (rest-endpoints.md: host-defined, RECOMMENDED 100). */
export const MAX_BULK_CANCEL_RUN_IDS = 100;

/** Longest run id accepted in a bulk cancel (openapi.yaml `RunId`). */
export const MAX_RUN_ID_LENGTH = 128;

/** Longest bulk cancel `reason` (openapi.yaml). */
export const MAX_BULK_CANCEL_REASON_LENGTH = 512;

/** Body of `POST /v1/runs:bulk-cancel` (rest-endpoints.md). Unknown fields are rejected. */
export class BulkCancelRunsRequestDto {
  @Describe('The runs to cancel; each is cancelled on its own and answered in this order.')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_CANCEL_RUN_IDS)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(MAX_RUN_ID_LENGTH, { each: true })
  runIds!: string[];

  @Describe('Why the runs are cancelled.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_BULK_CANCEL_REASON_LENGTH)
  reason?: string;
}
