import { Inject, Injectable } from '@nestjs/common';
import type { RunEventDoc } from '@openwop/contracts';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import { ApiError } from '../common/api.error';

/** The projected run row the read routes need. */
export interface RunRow {
  readonly runId: string;
  readonly tenant: string;
  readonly status: string;
  readonly lastSequence: number;
  readonly snapshot: Record<string, unknown>;
}

/**
 * Reads the projector's read models (`runs`, `run_events`). Every run lookup is bound to the
 * caller's tenant in the same query (auth.md §Authorization), so a run of another tenant reads as
 * absent.
 */
@Injectable()
export class RunReadRepository {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** The run, when it exists and belongs to `tenant`. */
  async findVisible(runId: string, tenant: string): Promise<RunRow | undefined> {
    const rows = await this.dataSource.query<RawRun[]>(
      'SELECT run_id, tenant, status, last_sequence, snapshot FROM runs WHERE run_id = $1 AND tenant = $2',
      [runId, tenant],
    );
    return rows[0] ? runRowOf(rows[0]) : undefined;
  }

  /**
   * The run, when it exists and belongs to `tenant`.
   *
   * @throws {@link ApiError} `not_found` otherwise, without saying which.
   */
  async requireVisible(runId: string, tenant: string): Promise<RunRow> {
    const row = await this.findVisible(runId, tenant);
    if (!row) throw ApiError.notFound(`Run ${runId} not found.`);
    return row;
  }

  /** Up to `limit` events of the run with `sequence > after`, in sequence order. */
  async eventsAfter(runId: string, after: number, limit: number): Promise<RunEventDoc[]> {
    const rows = await this.dataSource.query<{ doc: RunEventDoc }[]>(
      'SELECT doc FROM run_events WHERE run_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3',
      [runId, after, limit],
    );
    return rows.map((row) => row.doc);
  }

  /**
   * The run (when visible to `tenant`) and up to `limit` of its events after `after`, read together
   * in one statement, so the status and the events come from one snapshot of the store.
   */
  async runWithEventsAfter(
    runId: string,
    tenant: string,
    after: number,
    limit: number,
  ): Promise<{ run: RunRow; events: RunEventDoc[] } | undefined> {
    const rows = await this.dataSource.query<(RawRun & { events: RunEventDoc[] | null })[]>(
      `SELECT r.run_id, r.tenant, r.status, r.last_sequence, r.snapshot,
         (SELECT json_agg(e.doc ORDER BY e.sequence) FROM
           (SELECT doc, sequence FROM run_events WHERE run_id = r.run_id AND sequence > $3 ORDER BY sequence LIMIT $4) e
         ) AS events
       FROM runs r WHERE r.run_id = $1 AND r.tenant = $2`,
      [runId, tenant, after, limit],
    );
    const row = rows[0];
    return row ? { run: runRowOf(row), events: row.events ?? [] } : undefined;
  }
}

interface RawRun {
  run_id: string;
  tenant: string;
  status: string;
  last_sequence: number;
  snapshot: Record<string, unknown>;
}

function runRowOf(raw: RawRun): RunRow {
  return {
    runId: raw.run_id,
    tenant: raw.tenant,
    status: raw.status,
    lastSequence: Number(raw.last_sequence),
    snapshot: raw.snapshot,
  };
}
