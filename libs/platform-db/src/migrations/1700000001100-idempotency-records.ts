import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Layer-1 idempotency records (idempotency.md, RFC 0093 §C, RFC 0150 §A): one row per
 * `(authenticated tenant, routed operation, digest of the caller's Idempotency-Key)`, in Postgres so
 * every gateway instance sees the same record. A row holds the request digest (a different body
 * under the same key is refused), the state (`pending` under a lease, then `completed`,
 * `terminal-failure` or `retryable-failure`) and, for a final outcome, the response to replay.
 * Only caller-supplied keys live here; nothing the host mints for itself shares this keyspace.
 */
export class IdempotencyRecords1700000001100 implements MigrationInterface {
  name = 'IdempotencyRecords1700000001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_records (
        tenant text NOT NULL,
        endpoint text NOT NULL,
        key_digest text NOT NULL,
        request_digest text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'completed', 'retryable-failure', 'terminal-failure')),
        lease_owner text,
        lease_expires_at timestamptz,
        response_status int,
        response_headers jsonb,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, endpoint, key_digest)
      )`);
    await q.query('CREATE INDEX idempotency_records_created_at ON idempotency_records (created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS idempotency_records');
  }
}
