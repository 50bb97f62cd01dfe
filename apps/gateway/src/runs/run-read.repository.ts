import { Inject, Injectable } from '@nestjs/common';
import type { RunEventDoc } from '@openwop/contracts';
import { RunEventEntity, RunSnapshotEntity } from '@openwop/platform-db';
import { DATA_SOURCE } from '@openwop/platform-nest';
import { MoreThan, type DataSource } from 'typeorm';
import { ApiError } from '../common/api.error';

/** The projected run row the read routes need. */
export interface RunRow {
  readonly runId: string;
  readonly tenant: string;
  readonly status: string;
  readonly lastSequence: number;
  readonly snapshot: Record<string, unknown>;
}

/** Run statuses after which a run emits no more events. */
const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Whether a run status is terminal. */
export function isTerminalStatus(status: string): boolean {
  return TERMINAL_STATUSES.has(status);
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
    const row = await this.dataSource.getRepository(RunSnapshotEntity).findOneBy({ runId, tenant });
    return row ?? undefined;
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
    const rows = await this.dataSource.getRepository(RunEventEntity).find({
      where: { runId, sequence: MoreThan(after) },
      order: { sequence: 'ASC' },
      take: limit,
    });
    return rows.map((row) => row.doc);
  }
}
