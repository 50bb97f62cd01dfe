import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Topics, type StartRunCommand, type StartRunResult } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import type { RunEventFeed } from '@openwop/platform-db';
import { HOST_CONFIG, RUN_EVENT_FEED, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { ApiError } from '../common/api.error';
import type { ProtocolMajor } from '../common/protocol-version';
import { CommandSender } from '../commands/command.sender';
import { projectedStatus, RunNotices } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';
import { WebhookEgressCheck } from '../webhooks/webhook-egress.check';
import type { CreateRunRequestDto } from './create-run.request.dto';
import type { CreateRunResponseDto } from './create-run.response.dto';

/**
 * Creates a run: sends `run.start` to the engine over request/reply, maps a rejection through the
 * error table, then waits until the projector has the run's events up to the engine's
 * `lastSequence`, so a `GET /v1/runs/{runId}` right after the `201` sees the run.
 */
@Injectable()
export class CreateRunHandler {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly commands: CommandSender,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
    private readonly runs: RunReadRepository,
    private readonly egress: WebhookEgressCheck,
  ) {}

  /**
   * @throws {@link ApiError} `forbidden` when `tenantId` names another tenant; `validation_error` with
   * `details.field: "callbackUrl"` when the webhook egress guard refuses the `callbackUrl`
   * (interrupt.md §Callback delivery; nothing is started); `unavailable` (503)
   * when the engine did not answer in time; {@link DomainError} with the engine's code otherwise
   * (`run_already_exists` when `runId` names an existing run).
   * @param runId the new run's id; a fresh UUID unless the caller derives one (the host-sample seam).
   * @param major the protocol major the run is created under, stamped on it for life (ADR 0041);
   * its URLs are on that major's path space.
   */
  async handle(
    request: CreateRunRequestDto,
    caller: Caller,
    runId: string = randomUUID(),
    major: ProtocolMajor = 1,
  ): Promise<CreateRunResponseDto> {
    if (request.tenantId !== undefined && request.tenantId !== caller.tenant) {
      throw new ApiError('forbidden', 'tenantId must be the tenant of the API key.', {
        tenantId: request.tenantId,
      });
    }
    if (request.callbackUrl !== undefined) await this.assertCallbackUrl(request.callbackUrl);
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
        ...(request.metadata || request.configurable || request.tags
          ? {
              metadata: {
                ...request.metadata,
                ...(request.configurable ? { configurable: request.configurable } : {}),
                // RunOptions.tags ride in run.started's metadata: webhook tag filters read them there.
                ...(request.tags ? { tags: request.tags } : {}),
              },
            }
          : {}),
        ...(major === 2 ? { protocolMajor: 2 as const } : {}),
        ...(request.callbackUrl !== undefined ? { callbackUrl: request.callbackUrl } : {}),
      },
    };
    // Watching before the command is sent: the projection's notice cannot come before we listen.
    const notices = new RunNotices(this.feed, runId);
    let status: string;
    try {
      const result = await this.send(command);
      status = await this.awaitProjection(runId, caller.tenant, result, notices);
    } finally {
      notices.close();
    }
    const statusUrl = `${this.config.publicUrl}${major === 2 ? '' : '/v1'}/runs/${runId}`;
    return { runId, status, eventsUrl: `${statusUrl}/events`, statusUrl };
  }

  /**
   * interrupt.md §Callback delivery: a `callbackUrl` the webhook registration guard (webhooks.md
   * §Egress) would refuse is refused here, before anything starts; the notifier checks it again at
   * every delivery.
   */
  private async assertCallbackUrl(url: string): Promise<void> {
    const checked = await this.egress.check(url);
    if (!('refusal' in checked)) return;
    const message = `callbackUrl is refused by the egress guard: ${checked.refusal.detail}`;
    throw ApiError.validation(`${message}.`, [{ path: 'callbackUrl', message }], {
      field: 'callbackUrl',
      reason: checked.refusal.reason,
    });
  }

  private async send(command: StartRunCommand): Promise<StartRunResult> {
    const { runId, workflowId } = command.data;
    try {
      return await this.commands.send<StartRunResult>(Topics.engineCommands, runId, command, (timeoutMs) => ({
        message: `The engine did not confirm run ${runId} within ${timeoutMs} ms; the run may still start. Check GET /v1/runs/${runId} before retrying.`,
        details: { runId },
      }));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'workflow_not_found') {
        throw new DomainError(error.code, `Unknown workflowId ${JSON.stringify(workflowId)}.`, {
          ...error.details,
          workflowId,
        });
      }
      throw error;
    }
  }

  private awaitProjection(
    runId: string,
    tenant: string,
    result: StartRunResult,
    notices: RunNotices,
  ): Promise<string> {
    return projectedStatus(
      { feed: this.feed, runs: this.runs, warn: (l) => this.logger.warn(l) },
      runId,
      tenant,
      result,
      notices,
    );
  }
}
