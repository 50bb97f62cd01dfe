import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `run_callbacks` (the notifier's): the `callbackUrl` a run was created with, read from its
 * `run.started`, and the major it was created under (for the run URL a notice names). The notifier
 * posts notice of each of the run's interrupts there (interrupt.md §Callback delivery).
 */
export class RunCallbacks1700000002220 implements MigrationInterface {
  name = 'RunCallbacks1700000002220';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE IF NOT EXISTS run_callbacks (
      run_id text PRIMARY KEY,
      tenant text NOT NULL,
      url text NOT NULL,
      protocol_major smallint NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS run_callbacks');
  }
}
