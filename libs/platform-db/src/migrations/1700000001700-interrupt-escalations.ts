import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a pending interrupt's next escalation step is due (ADR 0034): written by every save from the
 * interrupt's state (null once it is decided or every step is done), polled by the interrupt timer.
 */
export class InterruptEscalations1700000001700 implements MigrationInterface {
  name = 'InterruptEscalations1700000001700';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE interrupts ADD COLUMN IF NOT EXISTS escalation_due_at timestamptz');
    await q.query(
      `CREATE INDEX IF NOT EXISTS interrupts_escalation_due ON interrupts (escalation_due_at) WHERE status = 'pending' AND escalation_due_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS interrupts_escalation_due');
    await q.query('ALTER TABLE interrupts DROP COLUMN IF EXISTS escalation_due_at');
  }
}
