import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_SEQUENCE } from '@openwop/contracts';
import { IntQuery } from '../common/int-query.transform';

/** Longest batching window `bufferMs` (stream-modes.md §Aggregation hint; more is refused, as the OpenAPI maximum says). */
export const MAX_BUFFER_MS = 5_000;

/** Query of `GET /v1/runs/{runId}/events`. */
export class RunEventsQueryDto {
  @ApiPropertyOptional({
    description: 'Return events with a sequence greater than this; `Last-Event-ID` wins for SSE.',
    minimum: -1,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(-1)
  @Max(MAX_SEQUENCE)
  after?: number;

  @ApiPropertyOptional({
    description:
      'updates | values | messages | debug, or a comma-separated mix (values alone). Default updates for SSE; all events for JSON.',
    type: String,
  })
  @Allow()
  streamMode?: unknown;

  @ApiPropertyOptional({
    description:
      'SSE batching window (0..5000 ms; 0 = unbatched): frames go out as `event: batch` JSON arrays, at once on a terminal event or a suspension. Ignored by JSON answers.',
    minimum: 0,
    maximum: MAX_BUFFER_MS,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(MAX_BUFFER_MS)
  bufferMs?: number;
}

/** Query of `GET /v1/runs/{runId}/events/poll`. */
export class PollRunEventsQueryDto {
  @ApiPropertyOptional({
    description: 'Return events with a sequence greater than this (default -1: from the first event).',
    minimum: -1,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(-1)
  @Max(MAX_SEQUENCE)
  after?: number;

  @ApiPropertyOptional({
    description: 'Spec name of `after` (exclusive cursor); `after` wins when both are given.',
    minimum: 0,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(MAX_SEQUENCE)
  lastSequence?: number;

  @ApiPropertyOptional({
    description: 'How long to wait for a new event, in ms (default 0).',
    minimum: 0,
    maximum: 30000,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(30_000)
  timeoutMs?: number;

  @ApiPropertyOptional({
    description: 'Spec form of the wait, in seconds (0..60); `timeoutMs` wins when both are given.',
    minimum: 0,
    maximum: 60,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(60)
  timeout?: number;

  @ApiPropertyOptional({
    description: 'Optional filter, as on /events; absent means every event.',
    type: String,
  })
  @Allow()
  streamMode?: unknown;
}
