import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables of the engine workflows registry: tenant-scoped definitions registered over `workflow.register`. */
export class Workflows1700000000200 implements MigrationInterface {
  name = 'Workflows1700000000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE workflows (
      tenant text NOT NULL,
      workflow_id text NOT NULL,
      definition jsonb NOT NULL,
      version text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant, workflow_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS workflows');
  }
}
