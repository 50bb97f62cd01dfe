import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notifier's retention sweep (docs/adr/0028): settled deliveries are deleted by status and age
 * (`updated_at`, when they settled). The partial index holds only settled rows, so the sweep reads
 * the oldest of a status without scanning pending work or any tenant's listing index.
 *
 * `webhook_subscriptions.secret` keeps its type: it now holds the secret sealed under the operator
 * key ring (`v1:<keyId>:<nonce>:<ciphertext>`); a plain-text value written by an earlier build is
 * still read and is resealed by the notifier's startup step, so no data migration runs here.
 */
export class WebhookDeliveryRetention1700000001800 implements MigrationInterface {
  name = 'WebhookDeliveryRetention1700000001800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS webhook_deliveries_settled ON webhook_deliveries (status, updated_at)
        WHERE status IN ('delivered', 'failed', 'skipped', 'dead')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS webhook_deliveries_settled');
  }
}
