import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency records no longer keep what a route shows once (docs/adr/0017, revision): the
 * gateway writes a webhook registration's answer without its `secret`. Records an earlier build
 * wrote for `POST /v1/webhooks` (kept up to 24 h) lose the field here, so no stored answer holds a
 * secret in clear once this build has started; a replay of one answers without it, as of any
 * record this build writes.
 */
export class IdempotencyShownOnce1700000002120 implements MigrationInterface {
  name = 'IdempotencyShownOnce1700000002120';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE idempotency_records SET response_body = (response_body::jsonb - 'secret')::text
        WHERE endpoint = 'POST /v1/webhooks' AND state = 'completed'
          AND CASE WHEN response_body LIKE '{%' THEN (response_body::jsonb) ->> 'secret' IS NOT NULL ELSE false END`,
    );
  }

  async down(): Promise<void> {
    // A removed secret cannot be restored, and nothing needs it back.
  }
}
