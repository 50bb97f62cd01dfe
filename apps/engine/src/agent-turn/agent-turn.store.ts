import type { EntityManager } from 'typeorm';
import { ConsumerGroups, type AgentTurnCommand } from '@openwop/contracts';
import { afterCommit, returnedRows } from '@openwop/platform-db';

/** An owed agent turn as a worker claimed it. */
export interface ClaimedTurn {
  readonly turnId: string;
  readonly command: AgentTurnCommand;
  /** The claim's number (1 for the first): a claim that lost its lease no longer owns the row. */
  readonly attempt: number;
  /**
   * Read by the claiming statement, so the worker needs no statement of its own before it streams:
   * the run's engine state document as it was at the claim (undefined: no such run), and whether an
   * engine of the previous release decided the turn as an `agent.turn` command (its stored reply).
   */
  readonly runState?: object | null;
  readonly decidedBefore?: boolean;
}

/** The wake-ups of this process's turn workers (process-local; every worker polls besides). */
const doorbell = new Set<() => void>();

/** Rings `ring` whenever a transaction of this process that owes agent turns commits; returns the unsubscribe. */
export function onAgentTurnsOwed(ring: () => void): () => void {
  doorbell.add(ring);
  return () => doorbell.delete(ring);
}

/**
 * Records owed agent turns in the caller's transaction (a turn already owed stays as it is: its id
 * derives from the conversation, speaker and turn, so a re-decided follow-up is the same row), and
 * wakes this process's workers once the transaction committed.
 */
export async function oweAgentTurns(
  manager: EntityManager,
  turns: readonly AgentTurnCommand[],
): Promise<void> {
  if (turns.length === 0) return;
  await manager.query(
    `INSERT INTO engine_agent_turns (turn_id, run_id, conversation_id, after_turn_index, command)
     SELECT t->>'id', t->'data'->>'runId', t->'data'->>'conversationId', (t->'data'->>'afterTurnIndex')::integer, t
       FROM jsonb_array_elements($1::jsonb) AS t
     ON CONFLICT (turn_id) DO NOTHING`,
    [JSON.stringify(turns)],
  );
  afterCommit(manager, () => {
    for (const ring of doorbell) ring();
  });
}

interface RawClaim {
  turn_id: string;
  command: AgentTurnCommand;
  attempts: number;
  run_state: object | null;
  decided_before: boolean;
}

/**
 * Claims up to `limit` due turns for `owner` under a lease of `leaseMs`: new ones, and ones whose
 * lease ran out (the worker holding them died). `FOR UPDATE SKIP LOCKED`: two workers never claim
 * one row at once. A turn waits while an earlier turn of its conversation is still owed, so a
 * conversation's replies are produced in order. Each claimed turn comes with its run's state and
 * whether `decidedBy` (the engine's consumer group) holds a reply for it (see {@link ClaimedTurn}).
 */
export async function claimTurns(
  m: EntityManager,
  owner: string,
  leaseMs: number,
  limit: number,
  decidedBy: string = ConsumerGroups.engine,
): Promise<ClaimedTurn[]> {
  const rows = returnedRows(
    await m.query<RawClaim[] | [RawClaim[], number]>(
      `UPDATE engine_agent_turns t
          SET claimed_by = $1, attempts = t.attempts + 1, due_at = now() + ($2 * interval '1 millisecond')
        WHERE t.turn_id IN (
          SELECT c.turn_id FROM engine_agent_turns c
           WHERE c.due_at <= now()
             AND NOT EXISTS (SELECT 1 FROM engine_agent_turns e
                              WHERE e.conversation_id = c.conversation_id AND e.after_turn_index < c.after_turn_index)
           ORDER BY c.due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING t.turn_id, t.command, t.attempts,
        (SELECT r.state FROM engine_runs r WHERE r.run_id = t.run_id) AS run_state,
        EXISTS (SELECT 1 FROM processed_messages p
                 WHERE p.consumer = $4 AND p.message_id = t.turn_id AND p.reply IS NOT NULL) AS decided_before`,
      [owner, leaseMs, limit, decidedBy],
    ),
  );
  return rows.map((r) => ({
    turnId: r.turn_id,
    command: r.command,
    attempt: Number(r.attempts),
    runState: r.run_state,
    decidedBefore: r.decided_before === true,
  }));
}

/** Extends the leases `owner` still holds on `turnIds`. */
export async function renewLeases(
  m: EntityManager,
  owner: string,
  leaseMs: number,
  turnIds: readonly string[],
): Promise<void> {
  if (turnIds.length === 0) return;
  await m.query(
    `UPDATE engine_agent_turns SET due_at = now() + ($2 * interval '1 millisecond')
      WHERE turn_id = ANY($3::text[]) AND claimed_by = $1`,
    [owner, leaseMs, turnIds],
  );
}

/**
 * Settles a turn in the caller's transaction: deletes its row if this claim still owns it. `false`:
 * another claim took it over (this one's lease ran out), so whatever this one would submit must not
 * be: the other submits it.
 */
export async function settleTurn(m: EntityManager, owner: string, turn: ClaimedTurn): Promise<boolean> {
  const rows = returnedRows(
    await m.query<{ turn_id: string }[] | [{ turn_id: string }[], number]>(
      'DELETE FROM engine_agent_turns WHERE turn_id = $1 AND claimed_by = $2 AND attempts = $3 RETURNING turn_id',
      [turn.turnId, owner, turn.attempt],
    ),
  );
  return rows.length === 1;
}

/** Gives a claimed turn back, due again in `delayMs` (0: now, for another worker). */
export async function releaseTurn(
  m: EntityManager,
  owner: string,
  turn: ClaimedTurn,
  delayMs: number,
): Promise<void> {
  await m.query(
    `UPDATE engine_agent_turns SET claimed_by = NULL, due_at = now() + ($4 * interval '1 millisecond')
      WHERE turn_id = $1 AND claimed_by = $2 AND attempts = $3`,
    [turn.turnId, owner, turn.attempt, delayMs],
  );
}
