import { randomUUID } from 'node:crypto';
import { Body, Controller, Headers, HttpCode, Inject, Post } from '@nestjs/common';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { CancelRunHandler } from '../cancel-run/cancel-run.handler';
import { ApiError } from '../common/api.error';
import { assertResumeValueWithinLimits } from '../common/resume-value.limits';
import { parseIdempotencyKey } from '../idempotency/idempotency-key';
import { ResolveInterruptHandler } from '../resolve-interrupt/resolve-interrupt.handler';
import { RunReadRepository } from '../runs/run-read.repository';
import {
  parseBulkCancelInterruptsRequest,
  parseBulkResolveRequest,
  type BulkFilter,
  type BulkResolveItem,
  type BulkSelection,
  type BulkTarget,
} from './bulk-decision.request';
import {
  BULK_ITEMS_AT_ONCE,
  bulkItemCommandId,
  failed,
  mapBounded,
  succeeded,
  type BulkDecisionResult,
} from './bulk-decision.results';

/** Express paths of the two routes (the colon escaped). */
export const BULK_RESOLVE_INTERRUPTS_ROUTE = '/v1/interrupts\\:bulk-resolve';
export const BULK_CANCEL_INTERRUPTS_ROUTE = '/v1/interrupts\\:bulk-cancel';

/** The answer of a bulk decision. */
export interface BulkDecisionAnswer {
  /** The bulk request's id: its `Idempotency-Key` when it had one, else generated. */
  readonly bulkId: string;
  /** With a filter: what it selected at request time (oldest first), and whether more matched than `limit`. */
  readonly selected?: readonly BulkTarget[];
  readonly truncated?: boolean;
  readonly results: readonly BulkDecisionResult[];
}

/**
 * `POST /v1/interrupts:bulk-resolve` and `POST /v1/interrupts:bulk-cancel` (ADR 0036): up to
 * {@link MAX_BULK_DECISION_ITEMS} pending interrupts, named by `items` or selected once by a
 * `filter`, each decided on its own through the same handlers as the single routes, at most
 * {@link BULK_ITEMS_AT_ONCE} in flight. Every item is authorized on its own (the caller's tenant —
 * another tenant's run answers `not_found` — and whatever the interrupt aggregate refuses, e.g. an
 * approver list), answered in order, and never blocks its siblings; `200` even when every item
 * failed. Each resolve's command id derives from the bulk request's key and the interrupt, so a
 * retried request cannot decide an item twice; first-resolve-wins answers any other duplicate with
 * `interrupt_already_resolved`. Every command says `via: bulk` (the audit log's route).
 */
@Controller()
export class BulkDecideInterruptsController {
  constructor(
    private readonly resolver: ResolveInterruptHandler,
    private readonly canceller: CancelRunHandler,
    private readonly runs: RunReadRepository,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
  ) {}

  @Post(BULK_RESOLVE_INTERRUPTS_ROUTE)
  @HttpCode(200)
  @RequireScope('approvals:respond')
  async bulkResolve(
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @CurrentCaller() caller: Caller,
  ): Promise<BulkDecisionAnswer> {
    const request = parseBulkResolveRequest(body);
    if (request.selection.by === 'filter') assertResumeValueWithinLimits(request.resumeValue);
    const bulkId = requestKey(idempotencyKey);
    const { items, selected, truncated } = await this.select(request.selection, caller, (t) => ({
      ...t,
      resumeValue: request.resumeValue,
    }));
    const item: Caller = { ...caller, via: 'bulk' };
    const results = await mapBounded(items, BULK_ITEMS_AT_ONCE, async (target: BulkResolveItem) => {
      try {
        const commandId = bulkItemCommandId('interrupt.bulk-resolve', caller.tenant, bulkId, target);
        const result = await this.resolver.handle(
          target.runId,
          target.nodeId,
          target.resumeValue,
          'api',
          item,
          {
            commandId,
            awaitProjection: false,
          },
        );
        return succeeded(target, result.status);
      } catch (error) {
        return failed(target, error);
      }
    });
    return { bulkId, ...(selected ? { selected, truncated } : {}), results };
  }

  @Post(BULK_CANCEL_INTERRUPTS_ROUTE)
  @HttpCode(200)
  @RequireScope('runs:cancel')
  async bulkCancel(
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @CurrentCaller() caller: Caller,
  ): Promise<BulkDecisionAnswer> {
    const request = parseBulkCancelInterruptsRequest(body);
    const bulkId = requestKey(idempotencyKey);
    const { items, selected, truncated } = await this.select(request.selection, caller, (t) => t);
    const pending = await this.pendingOf(items, caller.tenant);
    const item: Caller = { ...caller, via: 'bulk' };
    const results = await mapBounded(items, BULK_ITEMS_AT_ONCE, async (target: BulkTarget) => {
      try {
        if (!pending.has(pairKey(target))) return await this.notPending(target, caller);
        const outcome = await this.canceller.cancel(target.runId, request.reason, item);
        if (outcome.status === 'cancelled' || outcome.status === 'cancelling')
          return succeeded(target, outcome.status);
        return failed(
          target,
          new ApiError('run_terminal', `Run ${target.runId} is already ${outcome.status}.`, {
            runStatus: outcome.status,
          }),
        );
      } catch (error) {
        return failed(target, error);
      }
    });
    return { bulkId, ...(selected ? { selected, truncated } : {}), results };
  }

  /** The items to decide: as listed, or the filter's matches now (oldest first, at most `limit`). */
  private async select<TItem extends BulkTarget>(
    selection: BulkSelection<TItem>,
    caller: Caller,
    fromFilter: (target: BulkTarget) => TItem,
  ): Promise<{ items: readonly TItem[]; selected?: BulkTarget[]; truncated?: boolean }> {
    if (selection.by === 'items') return { items: selection.items };
    const matches = await this.matching(selection.filter, selection.limit + 1, caller.tenant);
    const selected = matches.slice(0, selection.limit);
    return { items: selected.map(fromFilter), selected, truncated: matches.length > selection.limit };
  }

  /** The tenant's pending interrupts matching `filter`, oldest first (the one snapshot a filter is resolved from). */
  private async matching(filter: BulkFilter, limit: number, tenant: string): Promise<BulkTarget[]> {
    const now = Date.now();
    const where = ['tenant = $1'];
    const params: unknown[] = [tenant];
    const add = (sql: string, value: unknown): void => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.kind) add('kind = ?', filter.kind);
    if (filter.workflowId) add('workflow_id = ?', filter.workflowId);
    if (filter.runId) add('run_id = ?', filter.runId);
    if (filter.olderThanMs !== undefined) add('requested_at <= ?', new Date(now - filter.olderThanMs));
    if (filter.newerThanMs !== undefined) add('requested_at >= ?', new Date(now - filter.newerThanMs));
    params.push(limit);
    const rows = await this.ds.query<{ run_id: string; node_id: string }[]>(
      `SELECT run_id, node_id FROM pending_interrupts WHERE ${where.join(' AND ')}
       ORDER BY requested_at ASC, interrupt_id ASC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ runId: r.run_id, nodeId: r.node_id }));
  }

  /** Which of `targets` the tenant has pending now (one query). */
  private async pendingOf(targets: readonly BulkTarget[], tenant: string): Promise<Set<string>> {
    if (targets.length === 0) return new Set();
    const rows = await this.ds.query<{ run_id: string; node_id: string }[]>(
      `SELECT p.run_id, p.node_id FROM pending_interrupts p
       JOIN unnest($2::text[], $3::text[]) AS t(run_id, node_id) ON p.run_id = t.run_id AND p.node_id = t.node_id
       WHERE p.tenant = $1`,
      [tenant, targets.map((t) => t.runId), targets.map((t) => t.nodeId)],
    );
    return new Set(rows.map((r) => pairKey({ runId: r.run_id, nodeId: r.node_id })));
  }

  /**
   * An item of a bulk cancel whose interrupt is not pending: a run already cancelled (a repeated
   * bulk cancel) is `ok`; another tenant's or an unknown run is `not_found`; a run that is not
   * waiting there is `interrupt_not_found` and is left alone.
   */
  private async notPending(target: BulkTarget, caller: Caller): Promise<BulkDecisionResult> {
    const run = (await this.runs.requireVisible(target.runId, caller.tenant)).status;
    if (run === 'cancelled' || run === 'cancelling') return succeeded(target, run);
    return failed(
      target,
      new ApiError('interrupt_not_found', `Run ${target.runId} is not waiting on ${target.nodeId}.`),
    );
  }
}

function requestKey(header: string | undefined): string {
  const parsed = parseIdempotencyKey(header);
  return parsed.kind === 'valid' ? parsed.key : randomUUID();
}

function pairKey(target: BulkTarget): string {
  return JSON.stringify([target.runId, target.nodeId]);
}
