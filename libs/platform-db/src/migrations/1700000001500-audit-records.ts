import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (docs/adr/0032-the-audit-log-is-a-hash-chain-per-tenant.md):
 * - `audit_records`: append-only, one row per decision, `seq` gapless per tenant from 1, `hash` =
 *   SHA-256 over the canonical JSON of `{seq, prev_hash, record}`; `source_id` (the fact's id) is
 *   unique, so a redelivered fact is recorded once. A trigger refuses UPDATE and DELETE.
 * - `audit_heads`: each tenant's last seq and hash; the writer locks its row (`FOR UPDATE`) to
 *   append, so a tenant's chain has one writer at a time whatever the number of instances.
 */
export class AuditRecords1700000001500 implements MigrationInterface {
  name = 'AuditRecords1700000001500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE audit_records (
      tenant text NOT NULL,
      seq bigint NOT NULL CHECK (seq >= 1),
      at timestamptz NOT NULL,
      source_id text NOT NULL UNIQUE,
      record jsonb NOT NULL,
      prev_hash text NOT NULL,
      hash text NOT NULL,
      PRIMARY KEY (tenant, seq)
    )`);
    await q.query(`CREATE INDEX audit_records_tenant_at ON audit_records (tenant, at)`);
    await q.query(`CREATE TABLE audit_heads (
      tenant text PRIMARY KEY,
      seq bigint NOT NULL,
      hash text NOT NULL
    )`);
    await q.query(`CREATE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_records is append-only';
      END
    $$`);
    await q.query(`CREATE TRIGGER audit_records_append_only BEFORE UPDATE OR DELETE ON audit_records
      FOR EACH ROW EXECUTE FUNCTION audit_records_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_records`);
    await q.query(`DROP FUNCTION audit_records_append_only()`);
    await q.query(`DROP TABLE audit_heads`);
  }
}
