import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The approver's inbox (ADR 0035): the claim on a pending interrupt in columns of the interrupt
 * service's table (the lease is compared with the reader's clock), and indexes for the filters of
 * `GET /v1/interrupts` (kind, workflow, approver, assignee) on the tenant's newest-first keyset.
 */
export class InterruptInbox1700000001610 implements MigrationInterface {
  name = 'InterruptInbox1700000001610';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE interrupts ADD COLUMN IF NOT EXISTS claimed_by text, ADD COLUMN IF NOT EXISTS claim_expires_at timestamptz',
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS interrupts_pending_claimed ON interrupts (claimed_by, claim_expires_at) WHERE status = 'pending'`,
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS interrupts_pending_approvers ON interrupts USING gin ((state->'interrupt'->'data'->'approversList')) WHERE status = 'pending'`,
    );
    await q.query(
      'CREATE INDEX IF NOT EXISTS pending_interrupts_tenant_kind ON pending_interrupts (tenant, kind, requested_at DESC, interrupt_id DESC)',
    );
    await q.query(
      'CREATE INDEX IF NOT EXISTS pending_interrupts_tenant_workflow ON pending_interrupts (tenant, workflow_id, requested_at DESC, interrupt_id DESC)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS pending_interrupts_tenant_workflow');
    await q.query('DROP INDEX IF EXISTS pending_interrupts_tenant_kind');
    await q.query('DROP INDEX IF EXISTS interrupts_pending_approvers');
    await q.query('DROP INDEX IF EXISTS interrupts_pending_claimed');
    await q.query(
      'ALTER TABLE interrupts DROP COLUMN IF EXISTS claim_expires_at, DROP COLUMN IF EXISTS claimed_by',
    );
  }
}
