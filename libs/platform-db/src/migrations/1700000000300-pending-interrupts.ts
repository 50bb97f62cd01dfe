import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The projector's pending-interrupts read model behind `GET /v1/interrupts` and the admin view. */
export class PendingInterrupts1700000000300 implements MigrationInterface {
  name = 'PendingInterrupts1700000000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE pending_interrupts (
      interrupt_id text PRIMARY KEY,
      run_id text NOT NULL,
      node_id text NOT NULL,
      tenant text NOT NULL,
      workflow_id text NOT NULL,
      kind text NOT NULL,
      key text NOT NULL,
      data jsonb,
      timeout_ms integer,
      requested_at timestamptz NOT NULL)`);
    await q.query(
      'CREATE INDEX pending_interrupts_tenant_requested ON pending_interrupts (tenant, requested_at DESC, interrupt_id DESC)',
    );
    await q.query('CREATE INDEX pending_interrupts_run ON pending_interrupts (run_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS pending_interrupts');
  }
}
