import { Controller, Get, Inject, Query } from '@nestjs/common';
import { encodeKeysetCursor } from '@openwop/contracts';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { decodeKeysetCursor } from '../common/keyset-cursor';
import { createValidationPipe } from '../common/validation.pipe';
import { ListRunsQueryDto } from './list-runs.query.dto';

interface Row {
  run_id: string;
  workflow_id: string;
  status: string;
  current_node_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One run of the listing: the snapshot's identifying fields, not the whole snapshot. */
export interface RunListItem {
  readonly runId: string;
  readonly workflowId: string;
  readonly status: string;
  readonly currentNodeId?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * `GET /v1/runs`: the caller's tenant's runs from the `runs` projection, newest first, filtered by
 * status or workflow, paginated by an opaque keyset cursor (`?limit=&cursor=`, the pagination
 * shape of `GET /v1/interrupts` and the spec's `GET /v1/prompts`). The spec lists no such route; it
 * is a host convenience for operators and the `wop` CLI.
 */
@Controller()
export class ListRunsController {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  @Get('/v1/runs')
  @RequireScope('runs:read')
  async list(
    @Query(createValidationPipe()) q: ListRunsQueryDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ runs: RunListItem[]; nextCursor: string | null }> {
    const limit = q.limit ?? 50;
    const params: unknown[] = [caller.tenant];
    const where = ['tenant = $1'];
    if (q.status) where.push(`status = $${params.push(q.status)}`);
    if (q.workflowId) where.push(`workflow_id = $${params.push(q.workflowId)}`);
    if (q.cursor) {
      const { at, id } = decodeKeysetCursor(q.cursor);
      params.push(at, id);
      where.push(`(created_at, run_id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit + 1);
    const rows = await this.ds.query<Row[]>(
      `SELECT run_id, workflow_id, status, current_node_id, created_at, updated_at
       FROM runs WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, run_id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      runs: page.map((r) => ({
        runId: r.run_id,
        workflowId: r.workflow_id,
        status: r.status,
        ...(r.current_node_id !== null ? { currentNodeId: r.current_node_id } : {}),
        createdAt: new Date(r.created_at).toISOString(),
        updatedAt: new Date(r.updated_at).toISOString(),
      })),
      nextCursor:
        rows.length > limit && last ? encodeKeysetCursor(new Date(last.created_at), last.run_id) : null,
    };
  }
}
