import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tables of the interrupt service: the interrupt aggregate (its state as JSON, with the columns
 * the lookups and the durable timer need) and the runs cancelled through it, so an interrupt the
 * engine opens after its run was cancelled is born cancelled.
 */
export class Interrupts1700000000100 implements MigrationInterface {
  name = 'Interrupts1700000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE interrupts (
      interrupt_id text PRIMARY KEY,
      run_id text NOT NULL,
      node_id text NOT NULL,
      tenant text NOT NULL,
      kind text NOT NULL,
      key text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'resolved', 'expired', 'cancelled')),
      state jsonb NOT NULL,
      deadline_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE INDEX interrupts_run_node_status ON interrupts (run_id, node_id, status)`);
    await q.query(`CREATE INDEX interrupts_due ON interrupts (deadline_at) WHERE status = 'pending'`);
    await q.query(`CREATE TABLE interrupt_cancelled_runs (
      run_id text PRIMARY KEY,
      tenant text NOT NULL,
      reason text,
      cancelled_at timestamptz NOT NULL DEFAULT now())`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS interrupt_cancelled_runs`);
    await q.query(`DROP TABLE IF EXISTS interrupts`);
  }
}
