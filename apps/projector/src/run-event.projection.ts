import type { EntityManager } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
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
  const current = await manager.query<{ last_sequence: number; snapshot: RunSnapshot }[]>(
    'SELECT last_sequence, snapshot FROM runs WHERE run_id = $1 FOR UPDATE',
    [event.runId],
  );
  const seen = await manager.query<unknown[]>('SELECT 1 FROM run_events WHERE event_id = $1', [event.eventId]);
  if (seen.length > 0) return false;
  const last = current[0]?.last_sequence ?? -1;
  if (event.sequence !== last + 1) {
    if (event.sequence <= last) {
      throw new Error(`run ${event.runId}: sequence ${event.sequence} already taken by another event than ${event.eventId}`);
    }
    throw new SequenceGapError(event.runId, last + 1, event.sequence);
  }
  await manager.query(
    'INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
    [event.eventId, event.runId, event.sequence, event.type, event.nodeId ?? null, JSON.stringify(event)],
  );
  const next = evolveRunSnapshot(current[0]?.snapshot ?? null, event);
  if (next) await projectPendingInterrupts(manager, event, next);
  if (next) await projectConversation(manager, event, next);
  if (next) {
    await manager.query(
      `INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
       ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, current_node_id = EXCLUDED.current_node_id,
         last_sequence = EXCLUDED.last_sequence, snapshot = EXCLUDED.snapshot, updated_at = EXCLUDED.updated_at`,
      [
        next.runId,
        next.owner?.tenant ?? 'default',
        next.workflowId,
        next.status,
        next.currentNodeId ?? null,
        next.lastSequence,
        JSON.stringify(next),
        next.createdAt,
        next.updatedAt,
      ],
    );
  }
  return true;
}

/** Keeps `pending_interrupts` equal to the interrupts requested and not yet resolved, per run. */
async function projectPendingInterrupts(manager: EntityManager, event: RunEventDoc, run: RunSnapshot): Promise<void> {
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
    case 'run.completed':
    case 'run.failed':
    case 'run.cancelled':
    case 'node.cancelled':
      await manager.query('DELETE FROM pending_interrupts WHERE run_id = $1', [event.runId]);
      return;
    default:
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
async function projectConversation(manager: EntityManager, event: RunEventDoc, run: RunSnapshot): Promise<void> {
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
