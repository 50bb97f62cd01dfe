import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (webhooks.md, RFC 0083/0093; docs/adr/0028-webhooks-and-the-notifier.md):
 * - `webhook_subscriptions`: one row per registration, scoped to its tenant; the secret the
 *   notifier signs with, its fingerprint, and the subscription's circuit breaker;
 * - `webhook_runs`: the tenant and tags of each run the notifier has seen start (its own read model,
 *   so the tenant check never waits on another service's projection);
 * - `webhook_deliveries`: one row per (subscription, event). `due_at` is when it may next be
 *   claimed: the next attempt of a pending row, the lease end of one in flight. Instances claim due
 *   rows with `FOR UPDATE SKIP LOCKED`, so each attempt is made by one of them.
 */
export class Webhooks1700000001300 implements MigrationInterface {
  name = 'Webhooks1700000001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhook_subscriptions (
      webhook_id text PRIMARY KEY,
      tenant text NOT NULL,
      url text NOT NULL,
      events jsonb NOT NULL,
      tags jsonb NOT NULL DEFAULT '[]'::jsonb,
      secret text NOT NULL,
      secret_fingerprint text NOT NULL,
      durable boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'active',
      breaker_phase text NOT NULL DEFAULT 'closed',
      consecutive_failures integer NOT NULL DEFAULT 0,
      breaker_since timestamptz,
      window_started_at timestamptz,
      window_failures integer NOT NULL DEFAULT 0,
      created_by text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX webhook_subscriptions_tenant ON webhook_subscriptions (tenant, created_at)');
    await q.query(`CREATE TABLE webhook_runs (
      run_id text PRIMARY KEY,
      tenant text NOT NULL,
      tags jsonb NOT NULL DEFAULT '[]'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE webhook_deliveries (
      delivery_id text PRIMARY KEY,
      webhook_id text NOT NULL REFERENCES webhook_subscriptions (webhook_id) ON DELETE CASCADE,
      tenant text NOT NULL,
      run_id text NOT NULL,
      event_id text NOT NULL,
      sequence integer NOT NULL,
      event_type text NOT NULL,
      body text NOT NULL,
      status text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL,
      due_at timestamptz NOT NULL,
      claimed_by text,
      last_status integer,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz
    )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at) WHERE status IN ('pending', 'in_flight')`,
    );
    await q.query(
      'CREATE INDEX webhook_deliveries_tenant_status ON webhook_deliveries (tenant, status, created_at)',
    );
    await q.query('CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['webhook_deliveries', 'webhook_runs', 'webhook_subscriptions'])
      await q.query(`DROP TABLE IF EXISTS ${t}`);
  }
}
