import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A subscription's signature schemes (RFC 0201 §B; v2 webhooks.md §Standard Webhooks): `["v1"]`
 * for every subscription registered so far and every one that does not opt in;
 * `["v1", "standard-webhooks-1"]` for one that did, whose deliveries then carry the three
 * Standard Webhooks headers beside the OpenWOP family.
 */
export class WebhookSignatureAlgorithms1700000002210 implements MigrationInterface {
  name = 'WebhookSignatureAlgorithms1700000002210';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_subscriptions ADD COLUMN IF NOT EXISTS signature_algorithms jsonb NOT NULL DEFAULT '["v1"]'::jsonb`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE webhook_subscriptions DROP COLUMN IF EXISTS signature_algorithms');
  }
}
