import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engine's durable timers (`core.delay`): one row per run waiting on a timer, written in the
 * transaction that records the wait, deleted by the poller in the transaction that sends its firing
 * (or by the decision that cancels the run). Due rows are claimed with `FOR UPDATE SKIP LOCKED`.
 */
export class RunTimers1700000001200 implements MigrationInterface {
  name = 'RunTimers1700000001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE run_timers (
      run_id text NOT NULL,
      timer_key text NOT NULL,
      tenant text NOT NULL,
      due_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, timer_key)
    )`);
    await q.query('CREATE INDEX run_timers_due_at ON run_timers (due_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS run_timers');
  }
}
