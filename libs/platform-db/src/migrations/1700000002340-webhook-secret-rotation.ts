import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A subscription's rotated-out secret (v2 webhooks.md §Standard Webhooks "Rotation"): after
 * `rotateWebhookSecret`, `previous_secret` holds the secret it replaced (sealed like `secret`, ADR
 * 0028) and `previous_secret_until` the end of the overlap, during which deliveries are signed with
 * both. Both null when the subscription was never rotated or its overlap is over.
 */
export class WebhookSecretRotation1700000002340 implements MigrationInterface {
  name = 'WebhookSecretRotation1700000002340';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_subscriptions
         ADD COLUMN IF NOT EXISTS previous_secret text,
         ADD COLUMN IF NOT EXISTS previous_secret_until timestamptz`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE webhook_subscriptions DROP COLUMN IF EXISTS previous_secret, DROP COLUMN IF EXISTS previous_secret_until',
    );
  }
}
