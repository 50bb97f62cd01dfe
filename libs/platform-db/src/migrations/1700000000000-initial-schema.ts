import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Engine state, the transactional outbox, message dedupe, and the projector's read models. */
export class InitialSchema1700000000000 implements MigrationInterface {
  name = 'InitialSchema1700000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE processed_messages (
      consumer text NOT NULL,
      message_id text NOT NULL,
      reply jsonb,
      processed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer, message_id))`);
    await q.query(`CREATE TABLE outbox (
      id bigserial PRIMARY KEY,
      topic text NOT NULL,
      key text NOT NULL,
      value jsonb NOT NULL,
      headers jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE TABLE engine_runs (
      run_id text PRIMARY KEY,
      tenant text NOT NULL,
      workflow_id text NOT NULL,
      state jsonb NOT NULL,
      last_sequence integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE TABLE run_events (
      event_id text PRIMARY KEY,
      run_id text NOT NULL,
      sequence integer NOT NULL,
      type text NOT NULL,
      node_id text,
      doc jsonb NOT NULL,
      CONSTRAINT run_events_run_sequence UNIQUE (run_id, sequence))`);
    await q.query(`CREATE TABLE runs (
      run_id text PRIMARY KEY,
      tenant text NOT NULL,
      workflow_id text NOT NULL,
      status text NOT NULL,
      current_node_id text,
      last_sequence integer NOT NULL,
      snapshot jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL)`);
    await q.query(`CREATE INDEX runs_tenant_created ON runs (tenant, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['runs', 'run_events', 'engine_runs', 'outbox', 'processed_messages']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
