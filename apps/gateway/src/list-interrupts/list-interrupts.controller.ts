import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { encodeKeysetCursor } from '@openwop/contracts';
import { DATA_SOURCE, HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { decodeKeysetCursor } from '../common/keyset-cursor';
import { createValidationPipe } from '../common/validation.pipe';
import { ListInterruptsQueryDto } from './list-interrupts.query.dto';

interface Row {
  interrupt_id: string;
  run_id: string;
  node_id: string;
  workflow_id: string;
  kind: string;
  key: string;
  data: unknown;
  timeout_ms: number | null;
  requested_at: Date;
}

/**
 * `GET /v1/interrupts`: the caller's tenant's pending interrupts across runs, newest first,
 * filtered by kind, age or run, paginated by an opaque keyset cursor.
 */
@ApiTags('interrupts')
@Controller()
export class ListInterruptsController {
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
  ) {}

  @Get('/v1/interrupts')
  @RequireScope('runs:read')
  @ApiOkResponse({ description: '`{interrupts: [...], nextCursor}`' })
  async list(
    @Query(createValidationPipe()) q: ListInterruptsQueryDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ interrupts: unknown[]; nextCursor: string | null }> {
    const limit = q.limit ?? 50;
    const now = Date.now();
    const where = ['tenant = $1'];
    const params: unknown[] = [caller.tenant];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (q.kind) add('kind = ?', q.kind);
    if (q.runId) add('run_id = ?', q.runId);
    if (q.minAgeMs !== undefined) add('requested_at <= ?', new Date(now - q.minAgeMs));
    if (q.maxAgeMs !== undefined) add('requested_at >= ?', new Date(now - q.maxAgeMs));
    if (q.cursor) {
      const { at, id } = decodeKeysetCursor(q.cursor);
      params.push(at, id);
      where.push(`(requested_at, interrupt_id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit + 1);
    const rows = await this.ds.query<Row[]>(
      `SELECT interrupt_id, run_id, node_id, workflow_id, kind, key, data, timeout_ms, requested_at
       FROM pending_interrupts WHERE ${where.join(' AND ')}
       ORDER BY requested_at DESC, interrupt_id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      interrupts: page.map((r) => ({
        runId: r.run_id,
        nodeId: r.node_id,
        interruptId: r.interrupt_id,
        workflowId: r.workflow_id,
        kind: r.kind,
        key: r.key,
        data: r.data,
        requestedAt: new Date(r.requested_at).toISOString(),
        ageMs: Math.max(0, now - new Date(r.requested_at).getTime()),
        ...(r.timeout_ms !== null ? { timeoutMs: r.timeout_ms } : {}),
        resolveUrl: `${this.config.publicUrl}/v1/runs/${r.run_id}/interrupts/${r.node_id}`,
      })),
      nextCursor: rows.length > limit && last ? encodeKeysetCursor(new Date(last.requested_at), last.interrupt_id) : null,
    };
  }
}
