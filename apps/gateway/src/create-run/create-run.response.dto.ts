import { ApiProperty } from '@nestjs/swagger';

/** Body of `201 Created` from `POST /v1/runs`. */
export class CreateRunResponseDto {
  @ApiProperty()
  runId!: string;

  @ApiProperty({ description: 'Status of the projected run (pending | running | waiting-approval | ...).' })
  status!: string;

  @ApiProperty({ description: 'SSE endpoint of the run.' })
  eventsUrl!: string;

  @ApiProperty({ description: 'GET /v1/runs/{runId} of the run.' })
  statusUrl!: string;
}
