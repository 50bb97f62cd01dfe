import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The projector's conversation read models (RFC 0005, RFC 0101) behind
 * `GET /v1/runs/{runId}/conversations[/{conversationId}]`: one row per conversation and one per
 * recorded turn, folded from `conversation.*` run events in the transaction that stores the event.
 */
export class Conversations1700000000500 implements MigrationInterface {
  name = 'Conversations1700000000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations (
      conversation_id text PRIMARY KEY,
      run_id text NOT NULL,
      node_id text NOT NULL,
      tenant text NOT NULL,
      status text NOT NULL CHECK (status IN ('open', 'closed')),
      participants jsonb,
      turn_count integer NOT NULL,
      opened_at timestamptz NOT NULL,
      closed_at timestamptz,
      outcome jsonb,
      last_sequence integer NOT NULL)`);
    await q.query('CREATE INDEX conversations_run ON conversations (run_id, opened_at, conversation_id)');
    await q.query(`CREATE TABLE conversation_turns (
      conversation_id text NOT NULL,
      turn_index integer NOT NULL,
      message_id text NOT NULL,
      run_id text NOT NULL,
      role text NOT NULL,
      from_id text NOT NULL,
      speaker_id text,
      to_id text,
      group_id text,
      agent jsonb,
      content jsonb,
      ts bigint NOT NULL,
      PRIMARY KEY (conversation_id, turn_index),
      CONSTRAINT conversation_turns_message UNIQUE (conversation_id, message_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversation_turns');
    await q.query('DROP TABLE IF EXISTS conversations');
  }
}
