import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Topics, type ForkRunCommand, type ForkRunResult } from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { HOST_CONFIG, RUN_EVENT_FEED, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from '../commands/command.sender';
import { projectedStatus } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';
import { parseForkRequest } from './fork-request';
import type { ForkRunRequestDto } from './fork-run.request.dto';
import type { ForkRunResponseDto } from './fork-run.response.dto';

/** A created fork: the response body and where the new run lives. */
export interface CreatedFork extends ForkRunResponseDto {
  readonly statusUrl: string;
}

/**
 * Forks a run (replay.md, ADR 0008): checks the request, sends `run.fork {sourceRunId, fromSeq, mode,
 * overlay?}` to the engine, which answers it from its own record of the source (the caller's tenant
 * only: `404` otherwise; `422` for a `fromSeq` past its log), then waits until the projector has the
 * fork's first stretch, like `POST /v1/runs`. A fork that would reuse a recorded interrupt
 * resolution (any `replay` of a source that resolved one; a `branch` from past one) also needs
 * `approvals:respond`: the engine refuses it `403 forbidden` otherwise.
 */
@Injectable()
export class ForkRunHandler {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly commands: CommandSender,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
    private readonly runs: RunReadRepository,
  ) {}

  /**
   * @throws an `ApiError` `validation_error` (400) or `unavailable` (503); a `DomainError` with the
   * engine's code otherwise: `not_found` (source absent or another tenant's), `sequence_not_found` (422),
   * `forbidden` (403: it reuses a recorded resolution and the caller lacks `approvals:respond`).
   */
  async handle(sourceRunId: string, body: ForkRunRequestDto, caller: Caller): Promise<CreatedFork> {
    const request = parseForkRequest(body);
    const runId = randomUUID();
    const command: ForkRunCommand = this.commands.envelope(
      'run.fork',
      runId,
      {
        runId,
        sourceRunId,
        mode: request.mode,
        fromSeq: request.fromSeq,
        ...(request.overlay ? { overlay: request.overlay } : {}),
        // A fork that reuses a recorded answer needs the scope that answers (ADR 0008); the engine
        // decides on its own log whether this one does.
        callerMayResolve: caller.scopes.has('approvals:respond'),
      },
      caller,
    );
    const result = await this.send(command);
    const status = await this.awaitProjection(runId, caller.tenant, result);
    const statusUrl = `${this.config.publicUrl}/v1/runs/${runId}`;
    return {
      runId,
      sourceRunId,
      fromSeq: request.fromSeq,
      mode: request.mode,
      status,
      eventsUrl: `${statusUrl}/events`,
      statusUrl,
    };
  }

  private send(command: ForkRunCommand): Promise<ForkRunResult> {
    const { runId, sourceRunId } = command.data;
    return this.commands.send<ForkRunResult>(Topics.engineCommands, runId, command, (timeoutMs) => ({
      message: `The engine did not confirm fork ${runId} of run ${sourceRunId} within ${timeoutMs} ms; the fork may still start. Check GET /v1/runs/${runId} before retrying.`,
      details: { runId, sourceRunId },
    }));
  }

  private awaitProjection(runId: string, tenant: string, result: ForkRunResult): Promise<string> {
    return projectedStatus(
      { feed: this.feed, runs: this.runs, warn: (l) => this.logger.warn(l) },
      runId,
      tenant,
      result,
    );
  }
}
