import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engine's owed agent turns (ADR 0037): one row per reply an agent owes a conversation, written
 * in the transaction that records the turn calling for it, deleted in the transaction that submits
 * the reply. Workers claim due rows with `FOR UPDATE SKIP LOCKED` under a lease (`claimed_by`,
 * `due_at` moved to the lease's end); a worker killed mid-stream leaves a lease that runs out.
 */
export class EngineAgentTurns1700000001900 implements MigrationInterface {
  name = 'EngineAgentTurns1700000001900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE engine_agent_turns (
      turn_id text PRIMARY KEY,
      run_id text NOT NULL,
      conversation_id text NOT NULL,
      after_turn_index integer NOT NULL,
      command jsonb NOT NULL,
      due_at timestamptz NOT NULL DEFAULT now(),
      claimed_by text,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX engine_agent_turns_due_at ON engine_agent_turns (due_at)');
    await q.query(
      'CREATE INDEX engine_agent_turns_conversation ON engine_agent_turns (conversation_id, after_turn_index)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS engine_agent_turns');
  }
}
