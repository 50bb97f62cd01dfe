import type { EntityManager } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
import {
  chunksWithinParameterLimit,
  holdWrite,
  StatementBatch,
  takeReadAhead,
  valuesTuples,
  type ReadAheadPart,
} from '@openwop/platform-db';
import {
  conversationIdOf,
  evolveConversation,
  evolveRunSnapshot,
  pendingInterruptOf,
  reassignedApprovers,
  storableNumber,
  type ConversationView,
  type ProjectionError,
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

/** How {@link applyRunEvents} treats a run marked broken (`runs.projection_error`). */
export interface ApplyOptions {
  /**
   * Told of the events of a broken run that were held, not applied: after an event that could not
   * be stored, later events of its run would fork the read model from the log.
   */
  readonly onHeld?: (runId: string, held: readonly RunEventDoc[], error: ProjectionError) => void;
  /** The repair replay: apply a broken run's events anyway (the flag is cleared by the caller). */
  readonly repair?: boolean;
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
  options: ApplyOptions = {},
): Promise<ProjectedRun[]> {
  const projected: ProjectedRun[] = [];
  for (const [runId, runEvents] of groupByRun(events)) {
    const sequence = await applyToRun(manager, runId, runEvents, options);
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
  options: ApplyOptions,
): Promise<number | undefined> {
  const current = (readAheadRow(manager, runId, events) ?? { row: await readRunRow(manager, runId, events) })
    .row;
  const seen = new Set(current?.known ?? []);
  const broken = current?.projection_error ?? null;
  if (broken && !options.repair) {
    // The run's projection stopped at an event it could not store: applying later ones would
    // fork the read model from the log. They wait for the repair replay, which applies them in order.
    const held = events.filter((e) => !seen.has(e.eventId));
    if (held.length > 0) options.onHeld?.(runId, held, broken);
    return undefined;
  }
  let snapshot: RunSnapshot | null = current?.snapshot ? withoutProjectionError(current.snapshot) : null;
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
  const writes = StatementBatch.for(manager);
  try {
    // The new events and the run's row in one statement (the row is written last, with the
    // snapshot as of the last event; nothing in between reads either).
    await writes.add(() =>
      insertEventsAndRun(manager, fresh, snapshot && moves.length > 0 ? snapshot : undefined),
    );
    // Side tables follow event by event, each against the snapshot as of that event. An interrupt's
    // pending row that a later event of the batch clears with the whole run's is left to that one.
    const lastClear = moves.findLastIndex(({ event }) => CLEARS_RUN.has(event.type));
    for (const [i, { event, run }] of moves.entries()) {
      const clearedLater = event.type === 'interrupt.resolved' && i < lastClear;
      if (!clearedLater) await writes.add(() => projectPendingInterrupts(manager, event, run));
      await projectConversation(manager, event, run); // reads what it changes
    }
  } catch (error) {
    return writes.rethrow(error);
  }
  await writes.settle();
  return fresh[fresh.length - 1]!.sequence;
}

interface RunRow {
  readonly last_sequence: number | null;
  readonly snapshot: RunSnapshot | null;
  readonly projection_error: ProjectionError | null;
  /** Which of the events are stored already. */
  readonly known: readonly string[];
}

/** One statement: the run's row, locked (absent before run.started), and which events are stored. */
async function readRunRow(
  manager: EntityManager,
  runId: string,
  events: readonly RunEventDoc[],
): Promise<RunRow | undefined> {
  const [row] = await manager.query<RunRow[]>(
    `WITH run AS (SELECT last_sequence, snapshot, projection_error FROM runs WHERE run_id = $1 FOR UPDATE)
     SELECT (SELECT last_sequence FROM run) AS last_sequence, (SELECT snapshot FROM run) AS snapshot,
       (SELECT projection_error FROM run) AS projection_error,
       ARRAY(SELECT event_id FROM run_events WHERE event_id = ANY($2::text[])) AS known`,
    [runId, events.map((e) => e.eventId)],
  );
  return row;
}

/** What {@link RUN_ROW_READ_AHEAD} reads: the run's row, and the highest sequence stored of it. */
interface RunRowAhead {
  readonly row: Omit<RunRow, 'known'> | null;
  readonly stored: number | null;
}

/**
 * The run's row, locked, and the highest sequence of its stored events, for the first statement of
 * an engine decision in one process (ADR 0039): the projection in the decision takes them from there
 * instead of reading them again ({@link readAheadRow}).
 */
export const RUN_ROW_READ_AHEAD: ReadAheadPart = {
  table: 'runs',
  reads: ['runs', 'run_events'],
  select: (runId) =>
    `json_build_object(
       'row', (SELECT json_build_object('last_sequence', last_sequence, 'snapshot', snapshot, 'projection_error', projection_error)
                 FROM runs WHERE run_id = ${runId} FOR UPDATE),
       'stored', (SELECT max(sequence) FROM run_events WHERE run_id = ${runId}))`,
};

/**
 * The run's row as {@link readRunRow} would read it, from what the decision's first statement read
 * ahead; undefined when it read nothing, or when an event's sequence is not past the highest stored
 * (which of them are stored is then for the read to say). An event past the highest stored sequence
 * is not stored: a stored event keeps its sequence.
 */
function readAheadRow(
  manager: EntityManager,
  runId: string,
  events: readonly RunEventDoc[],
): { readonly row: RunRow | undefined } | undefined {
  const ahead = takeReadAhead<RunRowAhead>(manager, RUN_ROW_READ_AHEAD.table, runId);
  if (!ahead?.value) return undefined;
  const { row, stored } = ahead.value;
  if (stored !== null && events.some((e) => e.sequence <= stored)) return undefined;
  return { row: row ? { ...row, known: [] } : undefined };
}

/**
 * Inserts `events` into the event store and, with `run`, upserts the run's row, in one statement.
 * A batch past the bind-parameter limit goes in chunks, in order; the last chunk carries the run.
 */
async function insertEventsAndRun(
  manager: EntityManager,
  events: readonly RunEventDoc[],
  run: RunSnapshot | undefined,
): Promise<void> {
  const chunks = chunksWithinParameterLimit(events, EVENT_ROW_CASTS.length, RUN_ROW_PARAMS);
  for (const [n, chunk] of chunks.entries()) {
    await insertEventsChunk(manager, chunk, n === chunks.length - 1 ? run : undefined);
  }
}

const EVENT_ROW_CASTS = ['', '', '', '', '', '::jsonb'] as const;
const RUN_ROW_PARAMS = 9;

async function insertEventsChunk(
  manager: EntityManager,
  events: readonly RunEventDoc[],
  run: RunSnapshot | undefined,
): Promise<void> {
  const params: unknown[] = [];
  for (const event of events) {
    params.push(
      event.eventId,
      event.runId,
      event.sequence,
      event.type,
      event.nodeId ?? null,
      JSON.stringify(event),
    );
  }
  const insert = `INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc) VALUES ${valuesTuples(events.length, EVENT_ROW_CASTS)}`;
  // Held: in a decision's transaction they go out with its closing statement (ADR 0039).
  await holdWrite(manager, { sql: insert, params, tables: ['run_events'] });
  if (!run) return;
  await holdWrite(manager, {
    sql: `INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
     ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, current_node_id = EXCLUDED.current_node_id,
       last_sequence = EXCLUDED.last_sequence, snapshot = EXCLUDED.snapshot, updated_at = EXCLUDED.updated_at`,
    params: [
      run.runId,
      run.owner?.tenant ?? 'default',
      run.workflowId,
      run.status,
      run.currentNodeId ?? null,
      run.lastSequence,
      JSON.stringify(run),
      run.createdAt,
      run.updatedAt,
    ],
    tables: ['runs'],
  });
}

/** Events after which a run has no pending interrupt. */
const CLEARS_RUN: ReadonlySet<string> = new Set([
  'run.completed',
  'run.failed',
  'run.cancelled',
  'node.cancelled',
]);

/** Keeps `pending_interrupts` equal to the interrupts requested and not yet resolved, per run. */
async function projectPendingInterrupts(
  manager: EntityManager,
  event: RunEventDoc,
  run: RunSnapshot,
): Promise<void> {
  switch (event.type) {
    case 'interrupt.requested': {
      const p = pendingInterruptOf(event);
      await holdWrite(manager, {
        tables: ['pending_interrupts'],
        sql: `INSERT INTO pending_interrupts (interrupt_id, run_id, node_id, tenant, workflow_id, kind, key, data, timeout_ms, requested_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10) ON CONFLICT (interrupt_id) DO NOTHING`,
        params: [
          p.interruptId,
          event.runId,
          p.nodeId,
          run.owner?.tenant ?? 'default',
          run.workflowId,
          p.kind,
          p.key,
          JSON.stringify(p.data),
          storableNumber(p.timeoutMs, null),
          p.requestedAt,
        ],
      });
      return;
    }
    case 'interrupt.reassigned': {
      // An escalation's new approvers (ADR 0034): the listing shows and filters by them.
      const id = String((event.payload as { interruptId?: unknown }).interruptId);
      const approvers = reassignedApprovers(event, id);
      if (approvers) {
        await manager.query(
          `UPDATE pending_interrupts SET data = jsonb_set(coalesce(data, '{}'::jsonb), '{approversList}', $2::jsonb) WHERE interrupt_id = $1`,
          [id, JSON.stringify(approvers)],
        );
      }
      return;
    }
    case 'interrupt.resolved':
      await holdWrite(manager, {
        sql: 'DELETE FROM pending_interrupts WHERE interrupt_id = $1',
        params: [String((event.payload as { interruptId?: unknown }).interruptId)],
        tables: ['pending_interrupts'],
      });
      return;
    default:
      if (CLEARS_RUN.has(event.type)) {
        await holdWrite(manager, {
          sql: 'DELETE FROM pending_interrupts WHERE run_id = $1',
          params: [event.runId],
          tables: ['pending_interrupts'],
        });
      }
      return;
  }
}

/** A `conversations` row as the projection reads it back. */
export interface ConversationRow {
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
      storableNumber(t.ts, 0),
    ],
  );
}

/**
 * Marks the run's projection broken at `error`'s event, unless it is already: the reason is kept in
 * `runs.projection_error` and shown in the run's snapshot (`projectionError`, in `GET /v1/runs/{id}`).
 * Later events of the run are held until the repair replay. False when the run has no row yet
 * (the event came before its `run.started` was stored) or was already marked.
 */
export async function markProjectionBroken(
  manager: EntityManager,
  runId: string,
  error: ProjectionError,
): Promise<boolean> {
  const json = JSON.stringify(error);
  const [row] = await manager.query<{ marked: boolean }[]>(
    `WITH marked AS (
       UPDATE runs SET projection_error = $2::jsonb, snapshot = snapshot || jsonb_build_object('projectionError', $2::jsonb)
       WHERE run_id = $1 AND projection_error IS NULL RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM marked) AS marked`,
    [runId, json],
  );
  return row?.marked === true;
}

/** Clears the broken mark of `runId` (the repair replay stored its events). */
export async function clearProjectionBroken(manager: EntityManager, runId: string): Promise<void> {
  await manager.query(
    `UPDATE runs SET projection_error = NULL, snapshot = snapshot - 'projectionError' WHERE run_id = $1`,
    [runId],
  );
}

/** The snapshot without the `projectionError` a broken projection stamped on it. */
export function withoutProjectionError(snapshot: RunSnapshot): RunSnapshot {
  const { projectionError: _dropped, ...rest } = snapshot as RunSnapshot & { projectionError?: unknown };
  return rest;
}

/** The {@link ConversationView} a `conversations` row holds. */
export function viewOf(row: ConversationRow): ConversationView {
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
