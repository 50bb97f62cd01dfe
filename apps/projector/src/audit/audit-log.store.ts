import type { EntityManager } from 'typeorm';
import {
  AUDIT_ACTIONS,
  AUDIT_ROUTES,
  appendTo,
  GENESIS_HASH,
  type AuditFact,
  type ChainHead,
} from '@openwop/audit-chain';

/**
 * Appends facts to their tenants' chains inside the caller's transaction. Each tenant's head row
 * is locked (`FOR UPDATE`) before its records are written, so one writer extends a chain at a
 * time even when two instances hold the audit topic's partitions during a rebalance; a fact whose
 * id is already recorded is skipped (redelivery), so the chain holds each decision once.
 * Returns how many records were appended.
 */
export async function appendFacts(m: EntityManager, facts: readonly AuditFact[]): Promise<number> {
  const byTenant = new Map<string, AuditFact[]>();
  for (const fact of facts) byTenant.set(fact.tenant, [...(byTenant.get(fact.tenant) ?? []), fact]);
  let appended = 0;
  // Tenants in a fixed order: two writers never lock heads in opposite orders.
  for (const tenant of [...byTenant.keys()].sort()) {
    appended += await appendToTenant(m, tenant, byTenant.get(tenant)!);
  }
  return appended;
}

async function appendToTenant(
  m: EntityManager,
  tenant: string,
  facts: readonly AuditFact[],
): Promise<number> {
  await m.query(
    `INSERT INTO audit_heads (tenant, seq, hash) VALUES ($1, 0, $2) ON CONFLICT (tenant) DO NOTHING`,
    [tenant, GENESIS_HASH],
  );
  const [row] = await m.query<{ seq: string; hash: string }[]>(
    `SELECT seq::text AS seq, hash FROM audit_heads WHERE tenant = $1 FOR UPDATE`,
    [tenant],
  );
  let head: ChainHead = { seq: Number(row!.seq), hash: row!.hash };
  const ids = facts.map((f) => f.factId);
  const known = new Set(
    (
      await m.query<{ source_id: string }[]>(
        `SELECT source_id FROM audit_records WHERE source_id = ANY($1::text[])`,
        [ids],
      )
    ).map((r) => r.source_id),
  );
  let appended = 0;
  for (const fact of facts) {
    if (known.has(fact.factId)) continue;
    known.add(fact.factId);
    const line = appendTo(head, tenant, fact);
    await m.query(
      `INSERT INTO audit_records (tenant, seq, at, source_id, record, prev_hash, hash) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)`,
      [tenant, line.seq, line.at, fact.factId, JSON.stringify(line.record), line.prev_hash, line.hash],
    );
    head = { seq: line.seq, hash: line.hash };
    appended++;
  }
  if (appended > 0)
    await m.query(`UPDATE audit_heads SET seq = $2, hash = $3 WHERE tenant = $1`, [
      tenant,
      head.seq,
      head.hash,
    ]);
  return appended;
}

/** The value as an {@link AuditFact}, or why it is not one. */
export function readFact(value: unknown): AuditFact | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const v = value as Record<string, unknown>;
  for (const field of ['factId', 'tenant', 'at', 'who', 'runId'] as const) {
    if (typeof v[field] !== 'string' || v[field] === '') return `${field} is not a non-empty string`;
  }
  if (Number.isNaN(Date.parse(v.at as string))) return 'at is not a timestamp';
  if (!(AUDIT_ROUTES as readonly unknown[]).includes(v.route))
    return `route ${String(v.route)} is not one of ${AUDIT_ROUTES.join(', ')}`;
  if (!(AUDIT_ACTIONS as readonly unknown[]).includes(v.action))
    return `action ${String(v.action)} is not one of ${AUDIT_ACTIONS.join(', ')}`;
  return value as AuditFact;
}
