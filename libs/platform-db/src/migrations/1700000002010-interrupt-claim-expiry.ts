import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The interrupt timer polls the end of each claim's lease (ADR 0035, `claim_expires_at`, cleared
 * when the claim ends) to tell its lapse once; like the deadline and escalation columns, the poll
 * and the timer's per-tick probe read a partial index of the pending rows that have one.
 */
export class InterruptClaimExpiry1700000002010 implements MigrationInterface {
  name = 'InterruptClaimExpiry1700000002010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS interrupts_claim_expiry_due ON interrupts (claim_expires_at) WHERE status = 'pending' AND claim_expires_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS interrupts_claim_expiry_due');
  }
}
