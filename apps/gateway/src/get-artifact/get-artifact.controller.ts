import { Controller, Get, Param } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { RunReadRepository } from '../runs/run-read.repository';
import { ArtifactReadRepository, type ArtifactView } from './artifact-read.repository';

/**
 * `GET /v1/runs/{runId}/artifacts/{artifactId}` (rest-endpoints.md §Artifacts, `artifacts:read`):
 * a run-produced artifact, read from the projection. Another tenant's run, and an artifact the run
 * never produced, are `404 not_found` alike.
 */
@Controller()
export class GetArtifactController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly artifacts: ArtifactReadRepository,
  ) {}

  @Get('/v1/runs/:runId/artifacts/:artifactId')
  @RequireScope('artifacts:read')
  async get(
    @Param('runId') runId: string,
    @Param('artifactId') artifactId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<ArtifactView> {
    await this.runs.requireVisible(runId, caller.tenant);
    const artifact = await this.artifacts.find(runId, artifactId);
    if (!artifact) throw ApiError.notFound(`Artifact ${artifactId} not found in run ${runId}.`);
    return artifact;
  }
}
