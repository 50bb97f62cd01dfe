import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiTags } from '@nestjs/swagger';
import { Topics, type CancelRunAtInterruptCommand } from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { CommandSender } from '../commands/command.sender';
import { waitForRun } from '../runs/run-change.waiter';
import { isTerminalStatus, RunReadRepository } from '../runs/run-read.repository';

/**
 * `POST /v1/runs/{runId}/cancel`. Goes through the interrupt service, the per-run gate of external
 * input, so a cancel and a resolve of the same run are decided in one order: pending interrupts are
 * cancelled first (a later resolve gets `422 interrupt_cancelled`), then the engine ends the run.
 */
@ApiTags('runs')
@Controller()
export class CancelRunController {
  constructor(
    private readonly commands: CommandSender,
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  @Post('/v1/runs/:runId/cancel')
  @HttpCode(202)
  @RequireScope('runs:cancel')
  @ApiAcceptedResponse({ description: 'Cancel accepted: `status` is `cancelled` once projected, else `cancelling`.' })
  async cancel(
    @Param('runId') runId: string,
    @Body() body: { reason?: unknown } | undefined,
    @CurrentCaller() caller: Caller,
  ): Promise<{ runId: string; status: string }> {
    const run = await this.runs.requireVisible(runId, caller.tenant);
    if (isTerminalStatus(run.status)) {
      throw new ApiError('run_terminal', `Run ${runId} is already ${run.status}.`, { runStatus: run.status });
    }
    const reason = body?.reason;
    if (reason !== undefined && typeof reason !== 'string') {
      throw ApiError.validation('reason must be a string.', [{ path: '/reason', message: 'must be a string' }]);
    }
    const command: CancelRunAtInterruptCommand = this.commands.envelope(
      'run.cancel',
      runId,
      { runId, ...(reason ? { reason } : {}) },
      caller,
    );
    await this.commands.send(Topics.interruptCommands, runId, command);
    const row = await waitForRun({ feed: this.feed, runId, timeoutMs: 5_000, fallbackMs: 100 }, async () => {
      const r = await this.runs.findVisible(runId, caller.tenant);
      return r && isTerminalStatus(r.status) ? r : undefined;
    });
    return { runId, status: row?.status ?? 'cancelling' };
  }
}
