import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Headers, Topics, type CommandReply, type ReplyError, type StartRunCommand, type StartRunResult } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { BUS, RequestTimeoutError, type Bus } from '@openwop/platform-bus';
import type { RunEventFeed } from '@openwop/platform-db';
import { HOST_CONFIG, RUN_EVENT_FEED, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { ApiError } from '../common/api.error';
import { waitForRun } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';
import type { CreateRunRequestDto } from './create-run.request.dto';
import type { CreateRunResponseDto } from './create-run.response.dto';

/** How long a created run may take to appear in the read model before we answer anyway. */
const READ_YOUR_WRITES_MS = 5_000;
const READ_YOUR_WRITES_FALLBACK_MS = 100;

/**
 * Creates a run: sends `run.start` to the engine over request/reply, maps a rejection through the
 * error table, then waits until the projector has the run's events up to the engine's
 * `lastSequence`, so a `GET /v1/runs/{runId}` right after the `201` sees the run.
 */
@Injectable()
export class CreateRunHandler {
  private readonly logger = new Logger('Gateway');

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
    private readonly runs: RunReadRepository,
  ) {}

  /**
   * @throws {@link ApiError} `forbidden` when `tenantId` names another tenant; `unavailable` (503)
   * when the engine did not answer in time; {@link DomainError} with the engine's code otherwise.
   */
  async handle(request: CreateRunRequestDto, caller: Caller): Promise<CreateRunResponseDto> {
    if (request.tenantId !== undefined && request.tenantId !== caller.tenant) {
      throw new ApiError('forbidden', 'tenantId must be the tenant of the API key.', { tenantId: request.tenantId });
    }
    const runId = randomUUID();
    const command: StartRunCommand = {
      id: randomUUID(),
      type: 'run.start',
      occurredAt: new Date().toISOString(),
      correlationId: runId,
      actor: { tenant: caller.tenant, principal: caller.principal },
      data: {
        runId,
        workflowId: request.workflowId,
        ...(request.inputs ? { inputs: request.inputs } : {}),
        ...(request.metadata ? { metadata: request.metadata } : {}),
      },
    };
    const reply = await this.send(command);
    if (!reply.ok) throw rejection(reply.error, request.workflowId);
    const status = await this.awaitProjection(runId, caller.tenant, reply.data);
    const statusUrl = `${this.config.publicUrl}/v1/runs/${runId}`;
    return { runId, status, eventsUrl: `${statusUrl}/events`, statusUrl };
  }

  private async send(command: StartRunCommand): Promise<CommandReply<StartRunResult>> {
    const timeoutMs = this.config.commandTimeoutMs;
    try {
      return await this.bus.request<CommandReply<StartRunResult>>(
        Topics.engineCommands,
        {
          key: command.data.runId,
          value: command,
          headers: {
            [Headers.correlationId]: command.correlationId,
            [Headers.messageId]: command.id,
            [Headers.messageType]: command.type,
          },
        },
        { timeoutMs },
      );
    } catch (error) {
      if (!(error instanceof RequestTimeoutError)) throw error;
      throw new ApiError(
        'unavailable',
        `The engine did not confirm run ${command.data.runId} within ${timeoutMs} ms; the run may still start. Check GET /v1/runs/${command.data.runId} before retrying.`,
        { runId: command.data.runId },
        1,
      );
    }
  }

  private async awaitProjection(runId: string, tenant: string, result: StartRunResult): Promise<string> {
    const row = await waitForRun(
      { feed: this.feed, runId, timeoutMs: READ_YOUR_WRITES_MS, fallbackMs: READ_YOUR_WRITES_FALLBACK_MS },
      async () => {
        const found = await this.runs.findVisible(runId, tenant);
        return found && found.lastSequence >= result.lastSequence ? found : undefined;
      },
    );
    if (row) return row.status;
    this.logger.warn(`run ${runId} was not projected up to sequence ${result.lastSequence} within ${READ_YOUR_WRITES_MS} ms`);
    return result.status;
  }
}

/** The engine's rejection as a domain error; an unknown workflow names the offending id. */
function rejection(error: ReplyError, workflowId: string): DomainError {
  if (error.code === 'workflow_not_found') {
    return new DomainError(error.code, `Unknown workflowId ${JSON.stringify(workflowId)}.`, { ...error.details, workflowId });
  }
  return new DomainError(error.code, error.message, error.details);
}
