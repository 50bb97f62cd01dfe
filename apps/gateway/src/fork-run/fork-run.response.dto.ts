import { ApiProperty } from '@nestjs/swagger';
import { FORK_MODES, type ForkMode } from '@openwop/contracts';

/** Body of `201 Created` from `POST /v1/runs/{runId}:fork`. */
export class ForkRunResponseDto {
  @ApiProperty({ description: 'The new run.' })
  runId!: string;

  @ApiProperty({ description: 'The run it was forked from.' })
  sourceRunId!: string;

  @ApiProperty()
  fromSeq!: number;

  @ApiProperty({ enum: FORK_MODES })
  mode!: ForkMode;

  @ApiProperty({
    description: 'Status of the projected new run (running | waiting-approval | completed | ...).',
  })
  status!: string;

  @ApiProperty({ description: 'SSE endpoint of the new run.' })
  eventsUrl!: string;
}
