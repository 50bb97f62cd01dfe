import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiError } from '../common/api.error';
import { RequireScope } from '../auth/require-scope.decorator';
import { createQueryValidationPipe } from '../common/validation.pipe';
import { RunReadRepository } from '../runs/run-read.repository';
import { parseLastEventId, wantsJson } from './events-request.parser';
import { RunEventStreamer } from './run-event.streamer';
import { RunEventsQueryDto } from './run-events.query.dto';
import { RunEventsReader } from './run-events.reader';
import { parseStreamModes } from './stream-mode.parser';

/** Most events one JSON answer of `/events` carries. */
const JSON_PAGE = 10_000;

/** `GET /v1/runs/{runId}/events`: the run's log as SSE, or as JSON for `Accept: application/json`. */
@Controller()
export class RunEventsController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly reader: RunEventsReader,
    private readonly streamer: RunEventStreamer,
  ) {}

  @Get('/v1/runs/:runId/events')
  @RequireScope('runs:read')
  async events(
    @Param('runId') runId: string,
    @Query(createQueryValidationPipe()) query: RunEventsQueryDto,
    @Headers('accept') accept: string | undefined,
    @Headers('last-event-id') lastEventId: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res() res: Response,
  ): Promise<void> {
    // Validation gates run before the content-shape branch (stream-modes.md §Content negotiation).
    const json = wantsJson(accept);
    const selection = json && query.streamMode === undefined ? 'all' : parseStreamModes(query.streamMode);
    const after = parseLastEventId(lastEventId) ?? query.after ?? -1;
    if (json) {
      res.json(await this.reader.page(runId, caller.tenant, after, selection, JSON_PAGE));
      return;
    }
    const run = await this.runs.requireVisible(runId, caller.tenant);
    // stream-modes.md §Resumption looks the event up: a cursor past the run's log names no event,
    // and a stream waiting after it would never see the terminal event, so it would never close.
    if (after > run.lastSequence) {
      throw ApiError.validation(
        `Run ${runId} has no event ${after}: its last sequence is ${run.lastSequence}.`,
        [
          {
            path: lastEventId?.trim() ? '/headers/last-event-id' : '/query/after',
            message: `must be at most ${run.lastSequence}`,
          },
        ],
      );
    }
    await this.streamer.stream(res, run, {
      modes: selection === 'all' ? ['debug'] : selection,
      after,
      ...(query.bufferMs !== undefined ? { bufferMs: query.bufferMs } : {}),
    });
  }
}
