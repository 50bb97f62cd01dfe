import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engine's own copy of the run log (ADR 0004, ADR 0008 revised): every event it decides, written
 * in the transaction that decides it, so the engine answers `run.fork` from its own history. Carries
 * over what earlier releases logged: the projected events, then those still in the outbox.
 */
export class EngineRunEvents1700000001400 implements MigrationInterface {
  name = 'EngineRunEvents1700000001400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE engine_run_events (
      run_id text NOT NULL,
      sequence integer NOT NULL,
      event jsonb NOT NULL,
      PRIMARY KEY (run_id, sequence)
    )`);
    await q.query(
      `INSERT INTO engine_run_events (run_id, sequence, event)
       SELECT run_id, sequence, doc FROM run_events ON CONFLICT DO NOTHING`,
    );
    await q.query(
      `INSERT INTO engine_run_events (run_id, sequence, event)
       SELECT value->>'runId', (value->>'sequence')::integer, value FROM outbox
       WHERE (topic = 'run.public.run.event.v1' OR topic LIKE '%.run.public.run.event.v1')
         AND value ? 'runId' AND value ? 'sequence'
       ON CONFLICT DO NOTHING`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS engine_run_events');
  }
}
