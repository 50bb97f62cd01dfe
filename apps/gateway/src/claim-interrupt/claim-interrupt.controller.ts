import { Body, Controller, HttpCode, Injectable, Param, Post } from '@nestjs/common';
import {
  Topics,
  type ClaimInterruptCommand,
  type ClaimInterruptResult,
  type ReleaseInterruptCommand,
} from '@openwop/contracts';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { CommandSender } from '../commands/command.sender';
import { ApiError } from '../common/api.error';
import { RunReadRepository } from '../runs/run-read.repository';
import { MAX_CLAIM_LEASE_MS } from './claim-interrupt.routes';

/** Sends `interrupt.claim` / `interrupt.release` to the interrupt service, which decides under the row lock. */
@Injectable()
export class ClaimInterruptHandler {
  constructor(
    private readonly commands: CommandSender,
    private readonly runs: RunReadRepository,
  ) {}

  async claim(
    runId: string,
    nodeId: string,
    leaseMs: number | undefined,
    caller: Caller,
  ): Promise<ClaimInterruptResult> {
    await this.runs.requireVisible(runId, caller.tenant);
    const command: ClaimInterruptCommand = this.commands.envelope(
      'interrupt.claim',
      runId,
      { runId, nodeId, ...(leaseMs !== undefined ? { leaseMs } : {}) },
      caller,
    );
    return this.commands.send<ClaimInterruptResult>(Topics.interruptCommands, runId, command);
  }

  async release(runId: string, nodeId: string, caller: Caller): Promise<ClaimInterruptResult> {
    await this.runs.requireVisible(runId, caller.tenant);
    const command: ReleaseInterruptCommand = this.commands.envelope(
      'interrupt.release',
      runId,
      { runId, nodeId },
      caller,
    );
    return this.commands.send<ClaimInterruptResult>(Topics.interruptCommands, runId, command);
  }
}

/**
 * `POST /v1/runs/{runId}/interrupts/{nodeId}:claim` (`{leaseMs?}`) and `:release` (ADR 0035).
 * Registered before the resolve controller: its `{nodeId}` would otherwise take `gate:claim`.
 */
@Controller()
export class ClaimInterruptController {
  constructor(private readonly handler: ClaimInterruptHandler) {}

  @Post('/v1/runs/:runId/interrupts/:nodeId\\:claim')
  @HttpCode(200)
  @RequireScope('approvals:respond')
  claim(
    @Param('runId') runId: string,
    @Param('nodeId') nodeId: string,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<ClaimInterruptResult> {
    return this.handler.claim(runId, nodeId, leaseOf(body), caller);
  }

  @Post('/v1/runs/:runId/interrupts/:nodeId\\:release')
  @HttpCode(200)
  @RequireScope('approvals:respond')
  release(
    @Param('runId') runId: string,
    @Param('nodeId') nodeId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<ClaimInterruptResult> {
    return this.handler.release(runId, nodeId, caller);
  }
}

/** `{}`, no body, or `{leaseMs}` with an integer in 1..24 h; anything else is a `validation_error`. */
function leaseOf(body: unknown): number | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.validation('The body must be a JSON object.', [
      { path: '', message: 'must be an object' },
    ]);
  }
  const { leaseMs, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length) {
    throw ApiError.validation(`Unknown field ${extra[0]}.`, [
      { path: `/${extra[0]}`, message: 'is not allowed' },
    ]);
  }
  if (leaseMs === undefined) return undefined;
  if (
    typeof leaseMs !== 'number' ||
    !Number.isInteger(leaseMs) ||
    leaseMs < 1 ||
    leaseMs > MAX_CLAIM_LEASE_MS
  ) {
    throw ApiError.validation(`leaseMs must be an integer in 1..${MAX_CLAIM_LEASE_MS}.`, [
      { path: '/leaseMs', message: `must be an integer in 1..${MAX_CLAIM_LEASE_MS}` },
    ]);
  }
  return leaseMs;
}
