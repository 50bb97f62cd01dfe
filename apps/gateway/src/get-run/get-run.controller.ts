import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ResolutionTokenReadRepository } from '../interrupt-tokens/resolution-token-read.repository';
import { pendingInterruptIdOf, withInterruptTokens } from '../interrupt-tokens/snapshot-tokens.decorator';
import { RunReadRepository } from '../runs/run-read.repository';

/** `GET /v1/runs/{runId}`: the projected `RunSnapshot`, its pending interrupt carrying the signed tokens. */
@ApiTags('runs')
@Controller()
export class GetRunController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly tokens: ResolutionTokenReadRepository,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
  ) {}

  @Get('/v1/runs/:runId')
  @RequireScope('runs:read')
  @ApiOkResponse({ description: 'The RunSnapshot (run-snapshot.schema.json); a pending `interrupt` carries `interruptToken` and `callbackUrl`.' })
  @ApiNotFoundResponse({ description: 'No such run for this tenant (`not_found`).' })
  async getRun(@Param('runId') runId: string, @CurrentCaller() caller: Caller): Promise<Record<string, unknown>> {
    const run = await this.runs.requireVisible(runId, caller.tenant);
    const interruptId = pendingInterruptIdOf(run.snapshot);
    if (interruptId === undefined) return run.snapshot;
    return withInterruptTokens(run.snapshot, await this.tokens.findValid(interruptId), this.config.publicUrl);
  }
}
