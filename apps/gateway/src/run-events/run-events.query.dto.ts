import { Allow, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_SEQUENCE } from '@openwop/contracts';
import { IntQuery } from '../common/int-query.transform';
import { Describe } from '../common/describe.decorator';

/** Longest batching window `bufferMs` (stream-modes.md §Aggregation hint; more is refused, as the OpenAPI maximum says). */
export const MAX_BUFFER_MS = 5_000;

/** Query of `GET /v1/runs/{runId}/events`. */
export class RunEventsQueryDto {
  @Describe('Return events with a sequence greater than this; `Last-Event-ID` wins for SSE.')
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(-1)
  @Max(MAX_SEQUENCE)
  after?: number;

  // Checked by the controller (`unsupported_stream_mode`, not `validation_error`): the route table documents it.
  @Allow()
  streamMode?: unknown;

  @Describe(
    'SSE batching window in ms (0 = unbatched): frames go out as `event: batch` JSON arrays, at once on a terminal event or a suspension. Ignored by JSON answers.',
  )
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(MAX_BUFFER_MS)
  bufferMs?: number;
}

/** Query of `GET /v1/runs/{runId}/events/poll`. */
export class PollRunEventsQueryDto {
  @Describe('Return events with a sequence greater than this (default -1: from the first event).')
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(-1)
  @Max(MAX_SEQUENCE)
  after?: number;

  @Describe('Spec name of `after` (exclusive cursor); `after` wins when both are given.')
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(MAX_SEQUENCE)
  lastSequence?: number;

  @Describe('How long to wait for a new event, in ms (default 0).')
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(30_000)
  timeoutMs?: number;

  @Describe('Spec form of the wait, in seconds; `timeoutMs` wins when both are given.')
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(0)
  @Max(60)
  timeout?: number;

  // Checked by the controller, as on /events: the route table documents it.
  @Allow()
  streamMode?: unknown;
}
