import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { InterruptTokenPresenter } from '../interrupt-tokens/interrupt-token.presenter';
import { RunReadRepository } from '../runs/run-read.repository';

/** `GET /v1/runs/{runId}`: the projected `RunSnapshot`, its pending interrupt carrying the signed tokens the caller may hold. */
@ApiTags('runs')
@Controller()
export class GetRunController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly tokens: InterruptTokenPresenter,
  ) {}

  @Get('/v1/runs/:runId')
  @RequireScope('runs:read')
  @ApiOkResponse({
    description:
      'The RunSnapshot (run-snapshot.schema.json). A pending `interrupt` carries `inspectToken`, `inspectUrl` and `tokenExpiresAt`; ' +
      'for a key holding `approvals:respond` also the resolving `interruptToken` and `callbackUrl`; once the tokens expired, `tokenExpired: true` and none.',
  })
  @ApiNotFoundResponse({ description: 'No such run for this tenant (`not_found`).' })
  async getRun(@Param('runId') runId: string, @CurrentCaller() caller: Caller): Promise<Record<string, unknown>> {
    return this.tokens.present(await this.runs.requireVisible(runId, caller.tenant), caller);
  }
}
