import { Controller, Get, Inject, Query } from '@nestjs/common';
import { encodeKeysetCursor } from '@openwop/contracts';
import { DATA_SOURCE, HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import type { ApiKeyRegistry, Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { decodeKeysetCursor } from '../common/keyset-cursor';
import { API_KEY_REGISTRY } from '../gateway.di-tokens';
import { createValidationPipe } from '../common/validation.pipe';
import { askedOf } from './interrupt-asked';
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
  claimed_by: string | null;
  claim_expires_at: Date | null;
  approvers: unknown;
}

/**
 * `GET /v1/interrupts`: the approver's inbox (ADR 0035), the caller's tenant's pending interrupts
 * across runs, each with what it asks, its SLA age, its approvers and its live claim; filtered by
 * kind, workflow, run, age, approver, assignee or claimed; youngest first or (`sort=-age`) oldest
 * first; paginated by an opaque keyset cursor. `approver=<principal>` finds the items whose approvers
 * name the principal or one of the groups the key configuration gives it in the caller's tenant. The rows are the projector's read model; the claim and
 * the current approvers (an escalation may reassign them) are the interrupt service's columns,
 * joined by id; a lapsed lease reads as no claim.
 */
@Controller()
export class ListInterruptsController {
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
    @Inject(API_KEY_REGISTRY) private readonly keys: ApiKeyRegistry,
  ) {}

  @Get('/v1/interrupts')
  @RequireScope('runs:read')
  async list(
    @Query(createValidationPipe()) q: ListInterruptsQueryDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ interrupts: unknown[]; nextCursor: string | null }> {
    const limit = q.limit ?? 50;
    const now = Date.now();
    const where = ['p.tenant = $1'];
    const params: unknown[] = [caller.tenant];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replaceAll('$?', `$${params.length}`));
    };
    const nowAt = new Date(now);
    const live = (column: string) => `(i.${column} IS NOT NULL AND i.claim_expires_at > $?)`;
    if (q.kind) add('p.kind = $?', q.kind);
    if (q.runId) add('p.run_id = $?', q.runId);
    if (q.workflowId) add('p.workflow_id = $?', q.workflowId);
    const minAge = Math.max(q.minAgeMs ?? -1, q.olderThanMs ?? -1);
    if (minAge >= 0) add('p.requested_at <= $?', new Date(now - minAge));
    if (q.maxAgeMs !== undefined) add('p.requested_at >= $?', new Date(now - q.maxAgeMs));
    if (q.approver) {
      // The principal named directly or through one of its configured groups (`group:<name>`).
      const entries = [q.approver, ...this.keys.groupsOf(caller.tenant, q.approver).map((g) => `group:${g}`)];
      add(`i.state->'interrupt'->'data'->'approversList' ?| $?::text[]`, entries);
    }
    if (q.assignee) {
      add('i.claimed_by = $?', q.assignee);
      add('i.claim_expires_at > $?', nowAt);
    }
    if (q.claimed === 'true') add(live('claimed_by'), nowAt);
    if (q.claimed === 'false') add(`NOT COALESCE(${live('claimed_by')}, false)`, nowAt);
    const oldestFirst = q.sort === '-age';
    if (q.cursor) {
      const { at, id } = decodeKeysetCursor(q.cursor);
      params.push(at, id);
      where.push(
        `(p.requested_at, p.interrupt_id) ${oldestFirst ? '>' : '<'} ($${params.length - 1}, $${params.length})`,
      );
    }
    params.push(limit + 1);
    const order = oldestFirst ? 'ASC' : 'DESC';
    const rows = await this.ds.query<Row[]>(
      `SELECT p.interrupt_id, p.run_id, p.node_id, p.workflow_id, p.kind, p.key, p.data, p.timeout_ms, p.requested_at,
         i.claimed_by, i.claim_expires_at, i.state->'interrupt'->'data'->'approversList' AS approvers
       FROM pending_interrupts p LEFT JOIN interrupts i ON i.interrupt_id = p.interrupt_id
       WHERE ${where.join(' AND ')}
       ORDER BY p.requested_at ${order}, p.interrupt_id ${order} LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      interrupts: page.map((r) => {
        const claimed =
          r.claimed_by !== null &&
          r.claim_expires_at !== null &&
          new Date(r.claim_expires_at).getTime() > now;
        const approvers = approversListOf(r.approvers, r.data);
        return {
          runId: r.run_id,
          nodeId: r.node_id,
          interruptId: r.interrupt_id,
          workflowId: r.workflow_id,
          kind: r.kind,
          key: r.key,
          asked: askedOf(r.kind, r.data, r.node_id),
          data: r.data,
          requestedAt: new Date(r.requested_at).toISOString(),
          ageMs: Math.max(0, now - new Date(r.requested_at).getTime()),
          ...(r.timeout_ms !== null ? { timeoutMs: r.timeout_ms } : {}),
          ...(approvers !== undefined ? { approversList: approvers } : {}),
          ...(claimed
            ? { assignee: r.claimed_by, claimExpiresAt: new Date(r.claim_expires_at as Date).toISOString() }
            : {}),
          resolveUrl: `${this.config.publicUrl}/v1/runs/${r.run_id}/interrupts/${r.node_id}`,
        };
      }),
      nextCursor:
        rows.length > limit && last
          ? encodeKeysetCursor(new Date(last.requested_at), last.interrupt_id)
          : null,
    };
  }
}

/**
 * An inbox item's `approversList`: the interrupt service's list (it holds reassignments), else the
 * payload's. Absent when none is set: no list and an empty list (anyone may answer, as on the quorum
 * fixture's open panel) read the same, so a client tests one thing.
 */
export function approversListOf(held: unknown, data: unknown): unknown[] | undefined {
  const list = Array.isArray(held) ? held : (data as { approversList?: unknown } | null)?.approversList;
  return Array.isArray(list) && list.length > 0 ? list : undefined;
}
