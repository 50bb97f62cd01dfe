import { Body, Controller, HttpCode, Inject, Logger, Param, Post } from '@nestjs/common';
import {
  Topics,
  type PauseRunCommand,
  type RunControlResult,
  type UnpauseRunCommand,
} from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { CommandSender } from '../commands/command.sender';
import { createValidationPipe } from '../common/validation.pipe';
import { projectedStatus } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';
import { PauseRunRequestDto, ResumeRunRequestDto } from './pause-run.request.dto';

/** Routes of `POST /v1/runs/{runId}:pause` and `:resume` (the colon is literal, escaped for Express). */
export const PAUSE_RUN_ROUTE = '/v1/runs/:runId\\:pause';
export const RESUME_RUN_ROUTE = '/v1/runs/:runId\\:resume';

/**
 * `POST /v1/runs/{runId}:pause` and `:resume` (rest-endpoints.md): an operator pauses a run (it
 * executes nothing until resumed; a timer or an interrupt answer that arrives meanwhile is recorded
 * and consumed at resume) and resumes it. The engine decides both, in the run's order; the answer
 * waits until the run's snapshot shows the change, so a `GET` right after reads it.
 */
@Controller()
export class PauseRunController {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly commands: CommandSender,
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  @Post(PAUSE_RUN_ROUTE)
  @HttpCode(202)
  @RequireScope('runs:cancel')
  async pause(
    @Param('runId') runId: string,
    @Body(createValidationPipe()) body: PauseRunRequestDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ runId: string; status: string; pausedAt?: string }> {
    await this.runs.requireVisible(runId, caller.tenant);
    const command: PauseRunCommand = this.commands.envelope(
      'run.pause',
      runId,
      {
        runId,
        drainPolicy: body.drainPolicy ?? 'drain-current-node',
        ...(body.reason !== undefined ? { reason: body.reason } : {}),
      },
      caller,
    );
    const result = await this.commands.send<RunControlResult>(Topics.engineCommands, runId, command);
    await this.projected(runId, caller.tenant, result);
    // rest-endpoints.md: the 202 says `paused`; a drain still under way has no `pausedAt` yet.
    return { runId, status: 'paused', ...(result.status === 'paused' ? { pausedAt: result.at } : {}) };
  }

  @Post(RESUME_RUN_ROUTE)
  @HttpCode(202)
  @RequireScope('runs:cancel')
  async resume(
    @Param('runId') runId: string,
    @Body(createValidationPipe()) body: ResumeRunRequestDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ runId: string; status: string; resumedAt: string }> {
    await this.runs.requireVisible(runId, caller.tenant);
    const command: UnpauseRunCommand = this.commands.envelope(
      'run.unpause',
      runId,
      { runId, ...(body.reason !== undefined ? { reason: body.reason } : {}) },
      caller,
    );
    const result = await this.commands.send<RunControlResult>(Topics.engineCommands, runId, command);
    await this.projected(runId, caller.tenant, result);
    return { runId, status: 'running', resumedAt: result.at };
  }

  private projected(runId: string, tenant: string, result: RunControlResult): Promise<string> {
    return projectedStatus(
      { feed: this.feed, runs: this.runs, warn: (l) => this.logger.warn(l) },
      runId,
      tenant,
      result,
    );
  }
}
