import { Inject, Injectable } from '@nestjs/common';
import type { InterruptKind } from '@openwop/contracts';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { MintedTokens, TokenChange } from '@openwop/token-domain';
import type { DataSource, EntityManager } from 'typeorm';

/** One interrupt's stored tokens and what inspection shows of it. */
export interface StoredTokens {
  readonly interruptId: string;
  readonly runId: string;
  readonly nodeId: string;
  /** The run owner's tenant; absent when `run.started` was never seen. */
  readonly tenant: string | undefined;
  readonly kind: InterruptKind;
  readonly key: string;
  readonly data: unknown;
  readonly resumeSchema: Record<string, unknown> | undefined;
  readonly timeoutMs: number | undefined;
  readonly requestedAt: string;
  readonly kid: string;
  readonly expiresAt: Date;
  readonly invalidatedAt: Date | undefined;
}

interface Row {
  interrupt_id: string;
  run_id: string;
  node_id: string;
  tenant: string | null;
  kind: InterruptKind;
  key: string;
  data: unknown;
  resume_schema: Record<string, unknown> | null;
  timeout_ms: string | null;
  requested_at: string;
  kid: string;
  expires_at: Date;
  invalidated_at: Date | null;
}

/**
 * The token service's tables (`resolution_tokens`, `token_runs`). Every write is idempotent, so a
 * redelivered or replayed run event changes nothing: tokens are inserted once, the first
 * invalidation time stays.
 */
@Injectable()
export class ResolutionTokenRepository {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  /** Applies the changes of one run event inside the caller's transaction. */
  async apply(manager: EntityManager, changes: readonly TokenChange[]): Promise<void> {
    for (const change of changes) {
      switch (change.type) {
        case 'run-owner':
          await manager.query(
            'INSERT INTO token_runs (run_id, tenant) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING',
            [change.runId, change.tenant],
          );
          break;
        case 'mint':
          await this.insert(manager, change.tokens);
          break;
        case 'invalidate-interrupt':
          await manager.query(
            'UPDATE resolution_tokens SET invalidated_at = $2 WHERE interrupt_id = $1 AND invalidated_at IS NULL',
            [change.interruptId, change.at],
          );
          break;
        case 'invalidate-run':
          await manager.query(
            'UPDATE resolution_tokens SET invalidated_at = $2 WHERE run_id = $1 AND invalidated_at IS NULL',
            [change.runId, change.at],
          );
          break;
      }
    }
  }

  /** The stored tokens of an interrupt. */
  async find(interruptId: string): Promise<StoredTokens | undefined> {
    const rows = await this.ds.query<Row[]>(
      `SELECT interrupt_id, run_id, node_id, tenant, kind, key, data, resume_schema, timeout_ms::text AS timeout_ms,
              requested_at, kid, expires_at, invalidated_at
       FROM resolution_tokens WHERE interrupt_id = $1`,
      [interruptId],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      interruptId: r.interrupt_id,
      runId: r.run_id,
      nodeId: r.node_id,
      tenant: r.tenant ?? undefined,
      kind: r.kind,
      key: r.key,
      data: r.data,
      resumeSchema: r.resume_schema ?? undefined,
      timeoutMs: r.timeout_ms === null ? undefined : Number(r.timeout_ms),
      requestedAt: r.requested_at,
      kid: r.kid,
      expiresAt: r.expires_at,
      invalidatedAt: r.invalidated_at ?? undefined,
    };
  }

  /** Invalidates an interrupt's tokens now (its resolve through a token just won). */
  async invalidate(interruptId: string, at: Date): Promise<void> {
    await this.ds.query(
      'UPDATE resolution_tokens SET invalidated_at = $2 WHERE interrupt_id = $1 AND invalidated_at IS NULL',
      [interruptId, at],
    );
  }

  private async insert(manager: EntityManager, t: MintedTokens): Promise<void> {
    await manager.query(
      `INSERT INTO resolution_tokens (interrupt_id, run_id, node_id, tenant, kind, key, data, resume_schema, timeout_ms,
         requested_at, resolve_token, inspect_token, kid, expires_at)
       VALUES ($1, $2, $3, (SELECT tenant FROM token_runs WHERE run_id = $2), $4, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (interrupt_id) DO NOTHING`,
      [
        t.interruptId,
        t.runId,
        t.nodeId,
        t.kind,
        t.key,
        JSON.stringify(t.data ?? null),
        t.resumeSchema === undefined ? null : JSON.stringify(t.resumeSchema),
        t.timeoutMs ?? null,
        t.requestedAt,
        t.resolveToken,
        t.inspectToken,
        t.kid,
        t.expiresAt,
      ],
    );
  }
}
