import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When an open conversation with a `maxSilenceMs` is due its silence audit (ADR 0011). */
export class ConversationSilence1700000000800 implements MigrationInterface {
  name = 'ConversationSilence1700000000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE interrupt_conversations ADD COLUMN silence_due_at timestamptz');
    await q.query(
      'CREATE INDEX interrupt_conversations_silence ON interrupt_conversations (silence_due_at) WHERE silence_due_at IS NOT NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE interrupt_conversations DROP COLUMN IF EXISTS silence_due_at');
  }
}
