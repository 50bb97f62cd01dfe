import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  forkSourceOf,
  Topics,
  type ForkRunCommand,
  type ForkRunResult,
  type RunEventDoc,
} from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { HOST_CONFIG, RUN_EVENT_FEED, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { ApiError } from '../common/api.error';
import { CommandSender } from '../commands/command.sender';
import { projectedStatus } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';
import { assertForkPoint, overlaidMetadata, parseForkRequest } from './fork-request';
import type { ForkRunRequestDto } from './fork-run.request.dto';
import type { ForkRunResponseDto } from './fork-run.response.dto';

/** Events read per query while loading the source log. */
const PAGE = 1_000;

/** A created fork: the response body and where the new run lives. */
export interface CreatedFork extends ForkRunResponseDto {
  readonly statusUrl: string;
}

/**
 * Forks a run (replay.md): reads the source run (the caller's tenant only; `404` otherwise) and its
 * projected event log, checks the request against it, sends `run.fork` to the engine with the log
 * split into fixed history, recorded resolutions and the events a replay must reproduce, then waits
 * until the projector has the fork's first stretch, like `POST /v1/runs`.
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
   * @throws {@link ApiError} `not_found` (source absent or another tenant's), `validation_error`,
   * `sequence_not_found` (422), `unavailable` (503); a {@link DomainError} with the engine's code otherwise.
   */
  async handle(sourceRunId: string, body: ForkRunRequestDto, caller: Caller): Promise<CreatedFork> {
    const request = parseForkRequest(body);
    await this.runs.requireVisible(sourceRunId, caller.tenant);
    const events = await this.sourceEvents(sourceRunId);
    assertForkPoint(sourceRunId, request.fromSeq, events);
    const started = events.find((e) => e.type === 'run.started');
    if (!started) throw ApiError.notFound(`Run ${sourceRunId} not found.`);
    const p = (started.payload ?? {}) as {
      workflowId: string;
      inputs?: Record<string, unknown>;
      metadata?: Record<string, unknown>;
    };
    const metadata = overlaidMetadata(p.metadata, request.overlay);
    const runId = randomUUID();
    const command: ForkRunCommand = this.commands.envelope(
      'run.fork',
      runId,
      {
        runId,
        sourceRunId,
        workflowId: p.workflowId,
        mode: request.mode,
        fromSeq: request.fromSeq,
        ...(p.inputs ? { inputs: p.inputs } : {}),
        ...(metadata ? { metadata } : {}),
        ...forkSourceOf(events, request.fromSeq, request.mode),
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

  /** The source's whole projected log, in sequence order. */
  private async sourceEvents(runId: string): Promise<RunEventDoc[]> {
    const events: RunEventDoc[] = [];
    for (;;) {
      const page = await this.runs.eventsAfter(runId, events.at(-1)?.sequence ?? -1, PAGE);
      events.push(...page);
      if (page.length < PAGE) return events;
    }
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
