import type { EntityManager } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
import { StatementBatch } from '@openwop/platform-db';
import {
  conversationIdOf,
  evolveConversation,
  evolveRunSnapshot,
  pendingInterruptOf,
  type ConversationView,
  type RunSnapshot,
} from '@openwop/projection-domain';

/** A run event arrived before its predecessor: never expected (single writer, one partition per run). */
export class SequenceGapError extends Error {
  constructor(runId: string, expected: number, got: number) {
    super(`run ${runId}: expected sequence ${expected}, got ${got}`);
    this.name = 'SequenceGapError';
  }
}

/**
 * Applies one run event to the event store and the run snapshot, inside the caller's transaction.
 * Idempotent: an event already stored (same `eventId`) changes nothing and returns false.
 * Deterministic: the same log gives the same rows, so a rebuild from offset 0 equals the live tables.
 */
export async function applyRunEvent(manager: EntityManager, event: RunEventDoc): Promise<boolean> {
  return (await applyRunEvents(manager, [event])).length > 0;
}

/** A run whose projection moved: its events up to `sequence` are stored. */
export interface ProjectedRun {
  readonly runId: string;
  readonly sequence: number;
}

/**
 * Applies run events, in order, inside the caller's transaction, with the same rows as
 * {@link applyRunEvent} on each in turn, but one read and one write of each run's row and one insert
 * of its new events: the projector's batches cost a few statements per run, not per event.
 * Returns the runs that took new events (events already stored are skipped).
 * @throws SequenceGapError (or a taken-sequence error) for an event that does not extend its run
 */
export async function applyRunEvents(
  manager: EntityManager,
  events: readonly RunEventDoc[],
): Promise<ProjectedRun[]> {
  const projected: ProjectedRun[] = [];
  for (const [runId, runEvents] of groupByRun(events)) {
    const sequence = await applyToRun(manager, runId, runEvents);
    if (sequence !== undefined) projected.push({ runId, sequence });
  }
  return projected;
}

/** Events by run, each run's in the order given (runs in order of first appearance). */
export function groupByRun(events: readonly RunEventDoc[]): Map<string, RunEventDoc[]> {
  const byRun = new Map<string, RunEventDoc[]>();
  for (const event of events) {
    const list = byRun.get(event.runId);
    if (list) list.push(event);
    else byRun.set(event.runId, [event]);
  }
  return byRun;
}

/**
 * Applies one run's events; the sequence of the last one stored, or undefined when all were known.
 * The two reads go out together, and so do the writes whose answers nothing waits for (on a
 * pipelined connection each group costs one round trip); a connection runs them in issue order.
 */
async function applyToRun(
  manager: EntityManager,
  runId: string,
  events: readonly RunEventDoc[],
): Promise<number | undefined> {
  // One statement: the run's row, locked (absent before run.started), and which events are stored.
  const [current] = await manager.query<
    { last_sequence: number | null; snapshot: RunSnapshot | null; known: string[] }[]
  >(
    `WITH run AS (SELECT last_sequence, snapshot FROM runs WHERE run_id = $1 FOR UPDATE)
     SELECT (SELECT last_sequence FROM run) AS last_sequence, (SELECT snapshot FROM run) AS snapshot,
       ARRAY(SELECT event_id FROM run_events WHERE event_id = ANY($2::text[])) AS known`,
    [runId, events.map((e) => e.eventId)],
  );
  const seen = new Set(current?.known ?? []);
  let snapshot: RunSnapshot | null = current?.snapshot ?? null;
  let last = current?.last_sequence ?? -1;
  const fresh: RunEventDoc[] = [];
  /** Each fresh event that moved the run, with the snapshot as of that event. */
  const moves: { event: RunEventDoc; run: RunSnapshot }[] = [];
  for (const event of events) {
    if (seen.has(event.eventId)) continue;
    seen.add(event.eventId);
    if (event.sequence !== last + 1) {
      if (event.sequence <= last) {
        throw new Error(
          `run ${event.runId}: sequence ${event.sequence} already taken by another event than ${event.eventId}`,
        );
      }
      throw new SequenceGapError(event.runId, last + 1, event.sequence);
    }
    fresh.push(event);
    const next = evolveRunSnapshot(snapshot, event);
    if (!next) continue; // no run row to move (an event before run.started): the row stays as it is
    snapshot = next;
    last = next.lastSequence;
    moves.push({ event, run: next });
  }
  if (fresh.length === 0) return undefined;
  const writes = new StatementBatch();
  try {
    // The new events and the run's row in one statement (the row is written last, with the
    // snapshot as of the last event; nothing in between reads either).
    writes.add(insertEventsAndRun(manager, fresh, snapshot && moves.length > 0 ? snapshot : undefined));
    // Side tables follow event by event, each against the snapshot as of that event. An interrupt's
    // pending row that a later event of the batch clears with the whole run's is left to that one.
    const lastClear = moves.findLastIndex(({ event }) => CLEARS_RUN.has(event.type));
    for (const [i, { event, run }] of moves.entries()) {
      const clearedLater = event.type === 'interrupt.resolved' && i < lastClear;
      if (!clearedLater) writes.add(projectPendingInterrupts(manager, event, run));
      await projectConversation(manager, event, run); // reads what it changes
    }
  } catch (error) {
    return writes.rethrow(error);
  }
  await writes.settle();
  return fresh[fresh.length - 1]!.sequence;
}

/** Inserts `events` into the event store and, with `run`, upserts the run's row, in one statement. */
async function insertEventsAndRun(
  manager: EntityManager,
  events: readonly RunEventDoc[],
  run: RunSnapshot | undefined,
): Promise<void> {
  const params: unknown[] = [];
  const rows = events.map((event, i) => {
    params.push(
      event.eventId,
      event.runId,
      event.sequence,
      event.type,
      event.nodeId ?? null,
      JSON.stringify(event),
    );
    const b = i * 6;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}::jsonb)`;
  });
  const insert = `INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc) VALUES ${rows.join(', ')}`;
  if (!run) {
    await manager.query(insert, params);
    return;
  }
  const b = params.length;
  params.push(
    run.runId,
    run.owner?.tenant ?? 'default',
    run.workflowId,
    run.status,
    run.currentNodeId ?? null,
    run.lastSequence,
    JSON.stringify(run),
    run.createdAt,
    run.updatedAt,
  );
  await manager.query(
    `WITH inserted AS (${insert})
     INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
     VALUES ($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}::jsonb, $${b + 8}, $${b + 9})
     ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, current_node_id = EXCLUDED.current_node_id,
       last_sequence = EXCLUDED.last_sequence, snapshot = EXCLUDED.snapshot, updated_at = EXCLUDED.updated_at`,
    params,
  );
}

/** Events after which a run has no pending interrupt. */
const CLEARS_RUN: ReadonlySet<string> = new Set(['run.completed', 'run.failed', 'run.cancelled', 'node.cancelled']);

/** Keeps `pending_interrupts` equal to the interrupts requested and not yet resolved, per run. */
async function projectPendingInterrupts(
  manager: EntityManager,
  event: RunEventDoc,
  run: RunSnapshot,
): Promise<void> {
  switch (event.type) {
    case 'interrupt.requested': {
      const p = pendingInterruptOf(event);
      await manager.query(
        `INSERT INTO pending_interrupts (interrupt_id, run_id, node_id, tenant, workflow_id, kind, key, data, timeout_ms, requested_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10) ON CONFLICT (interrupt_id) DO NOTHING`,
        [
          p.interruptId,
          event.runId,
          p.nodeId,
          run.owner?.tenant ?? 'default',
          run.workflowId,
          p.kind,
          p.key,
          JSON.stringify(p.data),
          p.timeoutMs ?? null,
          p.requestedAt,
        ],
      );
      return;
    }
    case 'interrupt.resolved':
      await manager.query('DELETE FROM pending_interrupts WHERE interrupt_id = $1', [
        String((event.payload as { interruptId?: unknown }).interruptId),
      ]);
      return;
    default:
      if (CLEARS_RUN.has(event.type)) {
        await manager.query('DELETE FROM pending_interrupts WHERE run_id = $1', [event.runId]);
      }
      return;
  }
}

interface ConversationRow {
  conversation_id: string;
  run_id: string;
  node_id: string;
  status: 'open' | 'closed';
  participants: readonly Record<string, unknown>[] | null;
  turn_count: number;
  opened_at: Date;
  closed_at: Date | null;
  outcome: unknown;
  last_sequence: number;
}

/**
 * Keeps `conversations` and `conversation_turns` equal to the fold of the run's `conversation.*`
 * events. A turn already recorded (same index or same message id) is left as it is.
 */
async function projectConversation(
  manager: EntityManager,
  event: RunEventDoc,
  run: RunSnapshot,
): Promise<void> {
  const conversationId = conversationIdOf(event);
  if (conversationId === undefined) return;
  const rows = await manager.query<ConversationRow[]>(
    `SELECT conversation_id, run_id, node_id, status, participants, turn_count, opened_at, closed_at, outcome, last_sequence
     FROM conversations WHERE conversation_id = $1 FOR UPDATE`,
    [conversationId],
  );
  const change = evolveConversation(rows[0] ? viewOf(rows[0]) : null, event);
  if (!change) return;
  const c = change.conversation;
  await manager.query(
    `INSERT INTO conversations (conversation_id, run_id, node_id, tenant, status, participants, turn_count, opened_at, closed_at, outcome, last_sequence)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10::jsonb, $11)
     ON CONFLICT (conversation_id) DO UPDATE SET status = EXCLUDED.status, participants = EXCLUDED.participants,
       turn_count = EXCLUDED.turn_count, opened_at = EXCLUDED.opened_at, closed_at = EXCLUDED.closed_at,
       outcome = EXCLUDED.outcome, last_sequence = EXCLUDED.last_sequence`,
    [
      c.conversationId,
      c.runId,
      c.nodeId,
      run.owner?.tenant ?? 'default',
      c.status,
      c.participants ? JSON.stringify(c.participants) : null,
      c.turnCount,
      c.openedAt,
      c.closedAt ?? null,
      c.outcome === undefined ? null : JSON.stringify(c.outcome),
      c.lastSequence,
    ],
  );
  const t = change.turn;
  if (!t) return;
  await manager.query(
    `INSERT INTO conversation_turns (conversation_id, turn_index, message_id, run_id, role, from_id, speaker_id, to_id, group_id, agent, content, ts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12) ON CONFLICT DO NOTHING`,
    [
      c.conversationId,
      t.turnIndex,
      t.messageId,
      event.runId,
      t.role,
      t.from,
      t.speakerId ?? null,
      t.to ?? null,
      t.groupId ?? null,
      t.agent === undefined ? null : JSON.stringify(t.agent),
      JSON.stringify(t.content ?? null),
      Math.trunc(Number(t.ts) || 0),
    ],
  );
}

function viewOf(row: ConversationRow): ConversationView {
  return {
    conversationId: row.conversation_id,
    runId: row.run_id,
    nodeId: row.node_id,
    status: row.status,
    ...(row.participants ? { participants: row.participants } : {}),
    turnCount: row.turn_count,
    openedAt: new Date(row.opened_at).toISOString(),
    ...(row.closed_at ? { closedAt: new Date(row.closed_at).toISOString(), outcome: row.outcome } : {}),
    lastSequence: row.last_sequence,
  };
}
