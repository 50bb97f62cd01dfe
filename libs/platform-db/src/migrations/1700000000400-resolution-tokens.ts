import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The token service's store (RFC 0093): the two signed tokens minted per interrupt, with what
 * inspection shows of it and when they stop being valid; and each run's owner tenant, taken from
 * `run.started`, so a token resolve acts for the run's tenant without reading another service's tables.
 */
export class ResolutionTokens1700000000400 implements MigrationInterface {
  name = 'ResolutionTokens1700000000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE token_runs (
      run_id text PRIMARY KEY,
      tenant text NOT NULL)`);
    await q.query(`CREATE TABLE resolution_tokens (
      interrupt_id text PRIMARY KEY,
      run_id text NOT NULL,
      node_id text NOT NULL,
      tenant text,
      kind text NOT NULL,
      key text NOT NULL,
      data jsonb,
      resume_schema jsonb,
      timeout_ms bigint,
      requested_at text NOT NULL,
      resolve_token text NOT NULL,
      inspect_token text NOT NULL,
      kid text NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      invalidated_at timestamptz)`);
    await q.query('CREATE INDEX resolution_tokens_run ON resolution_tokens (run_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS resolution_tokens');
    await q.query('DROP TABLE IF EXISTS token_runs');
  }
}
