import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The interrupt service's conversation aggregates (RFC 0005/0101, ADR 0011): one row of bounded
 * state per conversation, and its turns one row each, so a long conversation costs each turn the
 * same small write. The projector's transcript (`conversation_turns`) is a separate read model.
 */
export class InterruptConversations1700000000700 implements MigrationInterface {
  name = 'InterruptConversations1700000000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE interrupt_conversations (
      conversation_id text PRIMARY KEY,
      interrupt_id text NOT NULL,
      run_id text NOT NULL,
      node_id text NOT NULL,
      tenant text NOT NULL,
      status text NOT NULL,
      state jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query('CREATE INDEX interrupt_conversations_interrupt ON interrupt_conversations (interrupt_id)');
    await q.query(`CREATE TABLE interrupt_conversation_turns (
      conversation_id text NOT NULL,
      turn_index integer NOT NULL,
      message_id text NOT NULL,
      turn jsonb NOT NULL,
      PRIMARY KEY (conversation_id, turn_index),
      UNIQUE (conversation_id, message_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS interrupt_conversation_turns');
    await q.query('DROP TABLE IF EXISTS interrupt_conversations');
  }
}
