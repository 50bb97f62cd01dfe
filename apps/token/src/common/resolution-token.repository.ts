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

  /**
   * The statements that apply `changes`, in order. Two common neighbours share one statement: a run's
   * owner with the mint of its first interrupt (a run's first batch), and an interrupt's invalidation
   * with its run's (the batch that resumes and ends it). Each merged statement leaves the rows the two
   * statements would, so a batch of one merged pair needs no transaction of its own.
   */
  statementsFor(changes: readonly TokenChange[]): Statement[] {
    const statements: Statement[] = [];
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i]!;
      const next = changes[i + 1];
      if (change.type === 'run-owner' && next?.type === 'mint' && next.tokens.runId === change.runId) {
        statements.push(mintStatement(next.tokens, change));
        i++;
      } else if (change.type === 'invalidate-interrupt' && next?.type === 'invalidate-run' && next.runId === change.runId) {
        // The interrupt's rows take its time, the run's other rows the run's; first invalidation stays.
        statements.push({
          sql: `UPDATE resolution_tokens
                SET invalidated_at = CASE WHEN interrupt_id = $2 THEN $3::timestamptz ELSE $4::timestamptz END
                WHERE run_id = $1 AND invalidated_at IS NULL`,
          params: [change.runId, change.interruptId, change.at, next.at],
        });
        i++;
      } else {
        statements.push(statementOf(change));
      }
    }
    return statements;
  }

  /** Applies `statements` inside the caller's transaction, in order. */
  async apply(manager: EntityManager, statements: readonly Statement[]): Promise<void> {
    for (const { sql, params } of statements) await manager.query(sql, params);
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
}

/** One SQL statement with its parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

function statementOf(change: TokenChange): Statement {
  switch (change.type) {
    case 'run-owner':
      return {
        sql: 'INSERT INTO token_runs (run_id, tenant) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING',
        params: [change.runId, change.tenant],
      };
    case 'mint':
      return mintStatement(change.tokens);
    case 'invalidate-interrupt':
      return {
        sql: 'UPDATE resolution_tokens SET invalidated_at = $2 WHERE interrupt_id = $1 AND invalidated_at IS NULL',
        params: [change.interruptId, change.at],
      };
    case 'invalidate-run':
      return {
        sql: 'UPDATE resolution_tokens SET invalidated_at = $2 WHERE run_id = $1 AND invalidated_at IS NULL',
        params: [change.runId, change.at],
      };
  }
}

/**
 * Inserts an interrupt's tokens once, with the run owner's tenant as `token_runs` holds it; with
 * `owner`, the run's owner is recorded in the same statement and is the tenant when none was held.
 */
function mintStatement(t: MintedTokens, owner?: { readonly runId: string; readonly tenant: string }): Statement {
  const params: unknown[] = [
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
  ];
  const held = '(SELECT tenant FROM token_runs WHERE run_id = $2)';
  const insert = (tenant: string) =>
    `INSERT INTO resolution_tokens (interrupt_id, run_id, node_id, tenant, kind, key, data, resume_schema, timeout_ms,
       requested_at, resolve_token, inspect_token, kid, expires_at)
     VALUES ($1, $2, $3, ${tenant}, $4, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (interrupt_id) DO NOTHING`;
  if (!owner) return { sql: insert(held), params };
  params.push(owner.tenant);
  return {
    sql: `WITH owner AS (INSERT INTO token_runs (run_id, tenant) VALUES ($2, $14) ON CONFLICT (run_id) DO NOTHING)
     ${insert(`COALESCE(${held}, $14)`)}`,
    params,
  };
}
