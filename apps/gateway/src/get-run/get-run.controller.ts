import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { RunReadRepository } from '../runs/run-read.repository';

/** `GET /v1/runs/{runId}`: the projected `RunSnapshot`. */
@ApiTags('runs')
@Controller()
export class GetRunController {
  constructor(private readonly runs: RunReadRepository) {}

  @Get('/v1/runs/:runId')
  @RequireScope('runs:read')
  @ApiOkResponse({ description: 'The RunSnapshot (run-snapshot.schema.json).' })
  @ApiNotFoundResponse({ description: 'No such run for this tenant (`not_found`).' })
  async getRun(@Param('runId') runId: string, @CurrentCaller() caller: Caller): Promise<Record<string, unknown>> {
    const run = await this.runs.requireVisible(runId, caller.tenant);
    return run.snapshot;
  }
}
