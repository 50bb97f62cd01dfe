import { Inject, Injectable } from '@nestjs/common';
import type { RunEventDoc } from '@openwop/contracts';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';

/** A run-produced artifact as `GET /v1/runs/{runId}/artifacts/{artifactId}` answers it. */
export interface ArtifactView {
  readonly runId: string;
  readonly artifactId: string;
  readonly artifactType: string;
  readonly nodeId?: string;
  /** The artifact's payload, as the node produced it (absent when it carried none). */
  readonly data?: unknown;
  /** When its `artifact.created` was written, and at which sequence of the run's log. */
  readonly createdAt: string;
  readonly sequence: number;
  /** Any other member of the `artifact.created` payload (`version`, `summary`, `registered`, …). */
  readonly [member: string]: unknown;
}

/**
 * Reads a run's artifacts from the projected event store (`run_events`): an artifact is what the
 * run's latest `artifact.created` with that `artifactId` says (a node that produces it again, on a
 * later visit, supersedes the earlier one). The caller checks the run is visible to the tenant first.
 */
@Injectable()
export class ArtifactReadRepository {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  async find(runId: string, artifactId: string): Promise<ArtifactView | undefined> {
    const rows = await this.dataSource.query<{ doc: RunEventDoc }[]>(
      `SELECT doc FROM run_events
        WHERE run_id = $1 AND type = 'artifact.created' AND doc->'payload'->>'artifactId' = $2
        ORDER BY sequence DESC LIMIT 1`,
      [runId, artifactId],
    );
    const event = rows[0]?.doc;
    if (!event) return undefined;
    const payload = (event.payload ?? {}) as Record<string, unknown>;
    return {
      ...payload,
      runId: event.runId,
      artifactId,
      artifactType: typeof payload.artifactType === 'string' ? payload.artifactType : '',
      ...(event.nodeId !== undefined && payload.nodeId === undefined ? { nodeId: event.nodeId } : {}),
      createdAt: event.timestamp,
      sequence: event.sequence,
    };
  }
}
