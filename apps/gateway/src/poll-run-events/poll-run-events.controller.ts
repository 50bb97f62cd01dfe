import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { createQueryValidationPipe } from '../common/validation.pipe';
import { PollRunEventsQueryDto } from '../run-events/run-events.query.dto';
import { RunEventsReader, type RunEventPage } from '../run-events/run-events.reader';
import { parseStreamModes } from '../run-events/stream-mode.parser';
import { ShutdownSignal } from '../runs/shutdown-signal.service';

/** Most events one poll answer carries; `nextAfter` continues from there. */
const POLL_PAGE = 1_000;

/** `GET /v1/runs/{runId}/events/poll`: the long-poll fallback for clients without SSE. */
@Controller()
export class PollRunEventsController {
  constructor(
    private readonly reader: RunEventsReader,
    private readonly shutdown: ShutdownSignal,
  ) {}

  @Get('/v1/runs/:runId/events/poll')
  @RequireScope('runs:read')
  async poll(
    @Param('runId') runId: string,
    @Query(createQueryValidationPipe()) query: PollRunEventsQueryDto,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RunEventPage> {
    const selection = query.streamMode === undefined ? 'all' : parseStreamModes(query.streamMode);
    const after = query.after ?? query.lastSequence ?? -1;
    const waitMs = query.timeoutMs ?? (query.timeout ?? 0) * 1000;
    const gone = new AbortController();
    const onClose = (): void => gone.abort();
    res.on('close', onClose);
    try {
      return await this.reader.page(
        runId,
        caller.tenant,
        after,
        selection,
        POLL_PAGE,
        waitMs,
        AbortSignal.any([gone.signal, this.shutdown.signal]),
      );
    } finally {
      res.off('close', onClose);
    }
  }
}
