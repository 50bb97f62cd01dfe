import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox by key, in id order: every decision asks whether older rows of its keys still wait
 * (`appendToOutbox`). Without it that check read the whole heap, dead rows included, so it slowed
 * with every message published since the table was last vacuumed (docs/performance-log.md, round 5).
 */
export class OutboxKeyIndex1700000000900 implements MigrationInterface {
  name = 'OutboxKeyIndex1700000000900';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX outbox_key_id ON outbox (key, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS outbox_key_id');
  }
}
