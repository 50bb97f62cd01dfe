import type { EntityManager } from 'typeorm';
import { holdWrite } from '@openwop/platform-db';
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
  const ids = facts.map((f) => f.factId);
  // The head, locked, and which of the facts are already recorded, in one statement. A tenant's
  // first fact finds no head: it is created, then read as before. If this waited on another
  // writer's lock, the head read is that writer's (the lock re-reads it) but the recorded ids are
  // from before it: a fact both wrote then fails on `source_id`'s unique index, the transaction
  // rolls back, and the redelivery finds it recorded.
  const lockHead = () =>
    m.query<{ seq: string; hash: string; known: string[] }[]>(
      `SELECT seq::text AS seq, hash, ARRAY(SELECT source_id FROM audit_records WHERE source_id = ANY($2::text[])) AS known
         FROM audit_heads WHERE tenant = $1 FOR UPDATE`,
      [tenant, ids],
    );
  let [row] = await lockHead();
  if (!row) {
    await m.query(
      `INSERT INTO audit_heads (tenant, seq, hash) VALUES ($1, 0, $2) ON CONFLICT (tenant) DO NOTHING`,
      [tenant, GENESIS_HASH],
    );
    [row] = await lockHead();
  }
  let head: ChainHead = { seq: Number(row!.seq), hash: row!.hash };
  const known = new Set(row!.known);
  const lines: {
    seq: number;
    at: string;
    source_id: string;
    record: unknown;
    prev_hash: string;
    hash: string;
  }[] = [];
  for (const fact of facts) {
    if (known.has(fact.factId)) continue;
    known.add(fact.factId);
    const line = appendTo(head, tenant, fact);
    lines.push({
      seq: line.seq,
      at: line.at,
      source_id: fact.factId,
      record: line.record,
      prev_hash: line.prev_hash,
      hash: line.hash,
    });
    head = { seq: line.seq, hash: line.hash };
  }
  if (lines.length === 0) return 0;
  // The records and the head's move, held: they go out in one statement, with the deciding
  // transaction's closing one when the facts are chained in the decision (ADR 0039).
  await holdWrite(m, {
    sql: `INSERT INTO audit_records (tenant, seq, at, source_id, record, prev_hash, hash)
       SELECT $1, r.seq, r.at, r.source_id, r.record, r.prev_hash, r.hash
         FROM jsonb_to_recordset($2::jsonb) AS r(seq bigint, at timestamptz, source_id text, record jsonb, prev_hash text, hash text)`,
    params: [tenant, JSON.stringify(lines)],
    tables: ['audit_records'],
  });
  await holdWrite(m, {
    sql: 'UPDATE audit_heads SET seq = $2, hash = $3 WHERE tenant = $1',
    params: [tenant, head.seq, head.hash],
    tables: ['audit_heads'],
  });
  return lines.length;
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
