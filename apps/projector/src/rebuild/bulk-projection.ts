import type { DataSource, EntityManager } from 'typeorm';
import type { RunEventDoc } from '@openwop/contracts';
import {
  conversationIdOf,
  evolveConversation,
  evolveRunSnapshot,
  pendingInterruptOf,
  reassignedApprovers,
  projectionErrorOf,
  storableNumber,
  type ConversationView,
  type ProjectionError,
  type RunSnapshot,
} from '@openwop/projection-domain';
import {
  applyRunEvents,
  groupByRun,
  markProjectionBroken,
  viewOf,
  withoutProjectionError,
  type ConversationRow,
} from '../run-event.projection';

/** What a rebuild knows of a run between batches. */
interface RunState {
  snapshot: RunSnapshot | null;
  /** Sequence of the last stored event (-1: none). */
  last: number;
  /** Marked broken (ADR 0019): its later events are held. */
  broken: boolean;
}

/** Time and counts of a bulk replay, by phase. */
export interface BulkStats {
  /** Events handed to {@link BulkProjector.apply}. */
  events: number;
  /** Events stored. */
  applied: number;
  /** Events of broken runs, not applied (ADR 0019). */
  held: number;
  /** Runs marked broken during the replay. */
  broken: number;
  /** Events of runs without a row that could not be stored (the live projector dead-letters them). */
  unstorable: number;
  /** Batches that fell back to the live projector's one-event-at-a-time path. */
  fallbacks: number;
  batches: number;
  /** Milliseconds folding events in memory (snapshots, conversations, pending interrupts). */
  foldMs: number;
  /** Milliseconds reading run and conversation rows missing from memory. */
  loadMs: number;
  /** Milliseconds writing (statements, commit). */
  writeMs: number;
  /** Milliseconds per statement of the batched write (by table). */
  readonly statementMs: Record<string, number>;
}

/** A batch the in-memory fold does not cover (a gap, a taken sequence, an event before `run.started`, a statement refused). */
class NeedsFallback extends Error {}

/** Runs and conversations kept in memory between batches; the oldest are dropped past this many. */
const CACHE_LIMIT = 200_000;

/**
 * Projects a replayed run event log in large batches: each batch is folded in memory (every run's
 * snapshot, conversation rows, pending interrupts), then written in one transaction of a few
 * set-based statements whatever its size (the events, each run's row once, each conversation's row
 * once, the turns, the pending-interrupt changes). The rows equal those of the live projector
 * applying the same events one by one ({@link applyRunEvents}): the same pure folds, the same
 * values, and in order per run.
 *
 * It is the only writer of the target, so what it stored is what it remembers (runs and
 * conversations are reread only after they were dropped from memory). Anything the fold does not
 * cover rolls its batch back and replays that batch with the live projector's code, one event at a
 * time, with the live rules: a duplicate is skipped, an event that cannot be stored marks its run
 * broken and the run's later events are held (ADR 0019).
 */
export class BulkProjector {
  readonly stats: BulkStats = {
    events: 0,
    applied: 0,
    held: 0,
    broken: 0,
    unstorable: 0,
    fallbacks: 0,
    batches: 0,
    foldMs: 0,
    loadMs: 0,
    writeMs: 0,
    statementMs: {},
  };
  private readonly runs = new Map<string, RunState>();
  private readonly conversations = new Map<string, ConversationView | null>();

  /**
   * Keys (runs, conversations) this projector wrote, when its tables started empty: a key not in
   * memory and not here has no row, so it is not read. A Bloom filter: a false positive only costs
   * a read that finds nothing.
   */
  private readonly written: BloomFilter | undefined;

  /**
   * @param fresh the projection tables are empty and this projector is their only writer
   *   (a rebuild into a new database): rows it never wrote are not looked for.
   */
  constructor(
    private readonly ds: DataSource,
    options: { readonly fresh?: boolean; readonly writers?: number; readonly now?: () => string } = {},
  ) {
    this.written = options.fresh ? new BloomFilter(1 << 27) : undefined;
    this.stored = options.fresh ? { byId: new Map(), byRun: new Map() } : undefined;
    this.now = options.now ?? (() => new Date().toISOString());
    this.writers = Math.max(1, options.writers ?? 1);
  }

  /** Concurrent write transactions per batch (runs split between them). */
  private readonly writers: number;

  /** The pending-interrupt rows stored, when this projector wrote them all (a fresh target). */
  private readonly stored: { byId: Map<string, string>; byRun: Map<string, Set<string>> } | undefined;

  private readonly now: () => string;

  /** Applies `events` (in log order per run) in one transaction, or event by event when the fold cannot. */
  async apply(events: readonly RunEventDoc[]): Promise<void> {
    if (events.length === 0) return;
    this.stats.events += events.length;
    this.stats.batches++;
    await this.load(events);
    let t = performance.now();
    const shares = this.split(events).map((share) => {
      try {
        return { share, plan: this.fold(share) };
      } catch (error) {
        if (!(error instanceof NeedsFallback)) throw error;
        return { share, plan: undefined };
      }
    });
    this.stats.foldMs += performance.now() - t;
    t = performance.now();
    // The shares hold disjoint runs: their transactions run side by side, each on its connection.
    const stored = await Promise.all(
      shares.map(async ({ plan }) => {
        if (!plan) return false;
        try {
          const deletes = this.pendingDeletes(plan);
          await this.ds.transaction(async (m) => {
            await resolveStale(m, plan);
            await write(m, plan, deletes, this.stats.statementMs);
          });
          return true;
        } catch (error) {
          if (!(error instanceof NeedsFallback) && !isStatementError(error)) throw error;
          return false;
        }
      }),
    );
    for (const [i, { share, plan }] of shares.entries()) {
      if (stored[i]) this.commit(plan!);
      else await this.fallback(share);
    }
    this.stats.writeMs += performance.now() - t;
  }

  /** The batch's events split by run into one share per writer (each run's in log order). */
  private split(events: readonly RunEventDoc[]): RunEventDoc[][] {
    if (this.writers === 1) return [[...events]];
    const shares: RunEventDoc[][] = Array.from({ length: this.writers }, () => []);
    for (const e of events) shares[hash(e.runId) % this.writers]!.push(e);
    return shares.filter((s) => s.length > 0);
  }

  /**
   * Ids of stored pending rows the plan removes, when this projector knows them all (a fresh
   * target); undefined: delete by interrupt id and by run, whatever is stored.
   */
  private pendingDeletes(plan: BatchPlan): string[] | undefined {
    if (!this.stored) return undefined;
    const ids = new Set<string>();
    for (const id of plan.resolved) if (this.stored.byId.has(id)) ids.add(id);
    for (const runId of plan.clearedRuns) for (const id of this.stored.byRun.get(runId) ?? []) ids.add(id);
    return [...ids];
  }

  /** Reads the rows of the batch's runs and conversations that are not in memory, two statements in all. */
  private async load(events: readonly RunEventDoc[]): Promise<void> {
    const runIds = new Set<string>();
    const conversationIds = new Set<string>();
    for (const e of events) {
      if (!this.runs.has(e.runId)) {
        if (this.mayHaveRow(`r:${e.runId}`)) runIds.add(e.runId);
        else this.remember(this.runs, e.runId, { snapshot: null, last: -1, broken: false });
      }
      const c = conversationIdOf(e);
      if (c !== undefined && !this.conversations.has(c)) {
        if (this.mayHaveRow(`c:${c}`)) conversationIds.add(c);
        else this.remember(this.conversations, c, null);
      }
    }
    if (runIds.size === 0 && conversationIds.size === 0) return;
    const t = performance.now();
    if (runIds.size > 0) {
      const rows = await this.ds.query<
        {
          run_id: string;
          last_sequence: number;
          snapshot: RunSnapshot;
          projection_error: ProjectionError | null;
        }[]
      >('SELECT run_id, last_sequence, snapshot, projection_error FROM runs WHERE run_id = ANY($1::text[])', [
        [...runIds],
      ]);
      const found = new Map(rows.map((r) => [r.run_id, r]));
      for (const runId of runIds) {
        const row = found.get(runId);
        this.remember(
          this.runs,
          runId,
          row
            ? {
                snapshot: withoutProjectionError(row.snapshot),
                last: row.last_sequence,
                broken: row.projection_error !== null,
              }
            : { snapshot: null, last: -1, broken: false },
        );
      }
    }
    if (conversationIds.size > 0) {
      const rows = await this.ds.query<ConversationRow[]>(
        `SELECT conversation_id, run_id, node_id, status, participants, turn_count, opened_at, closed_at, outcome, last_sequence
         FROM conversations WHERE conversation_id = ANY($1::text[])`,
        [[...conversationIds]],
      );
      const found = new Map(rows.map((r) => [r.conversation_id, viewOf(r)]));
      for (const id of conversationIds) this.remember(this.conversations, id, found.get(id) ?? null);
    }
    this.stats.loadMs += performance.now() - t;
  }

  private mayHaveRow(key: string): boolean {
    return this.written === undefined || this.written.has(key);
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > CACHE_LIMIT) map.delete(map.keys().next().value!);
  }

  /** Folds the batch into new run states, rows to write and stale events to check; throws NeedsFallback. */
  private fold(events: readonly RunEventDoc[]): BatchPlan {
    const plan: BatchPlan = {
      events: [],
      runs: new Map(),
      conversations: new Map(),
      turns: [],
      pending: new Map(),
      resolved: new Set(),
      clearedRuns: new Set(),
      stale: [],
      held: 0,
    };
    const fresh = new Set<string>();
    for (const event of events) {
      const before = plan.runs.get(event.runId) ?? this.runs.get(event.runId)!;
      if (before.broken) {
        plan.held++;
        continue;
      }
      if (fresh.has(event.eventId)) continue; // the same event twice in the batch: stored once
      if (event.sequence <= before.last) {
        plan.stale.push(event.eventId); // stored before, or a taken sequence: checked in the write
        continue;
      }
      if (event.sequence !== before.last + 1) throw new NeedsFallback();
      const run = evolveRunSnapshot(before.snapshot, event);
      if (!run) throw new NeedsFallback(); // an event before run.started: the live path's rules
      fresh.add(event.eventId);
      plan.events.push(event);
      plan.runs.set(event.runId, { snapshot: run, last: event.sequence, broken: false });
      this.foldPending(plan, event, run);
      this.foldConversation(plan, event, run);
    }
    return plan;
  }

  private foldPending(plan: BatchPlan, event: RunEventDoc, run: RunSnapshot): void {
    if (event.type === 'interrupt.requested') {
      const p = pendingInterruptOf(event);
      if (plan.pending.has(p.interruptId)) return; // ON CONFLICT DO NOTHING: the first one stays
      plan.pending.set(p.interruptId, {
        interrupt_id: p.interruptId,
        run_id: event.runId,
        node_id: p.nodeId,
        tenant: run.owner?.tenant ?? 'default',
        workflow_id: run.workflowId,
        kind: p.kind,
        key: p.key,
        data: p.data ?? null,
        timeout_ms: storableNumber(p.timeoutMs, null),
        requested_at: p.requestedAt,
      });
    } else if (event.type === 'interrupt.reassigned') {
      const id = String((event.payload as { interruptId?: unknown }).interruptId);
      const approvers = reassignedApprovers(event, id);
      const row = plan.pending.get(id);
      if (!approvers) return;
      // A row written by an earlier batch is updated by the live path's rules.
      if (!row) throw new NeedsFallback();
      const data = typeof row.data === 'object' && row.data !== null ? row.data : {};
      plan.pending.set(id, { ...row, data: { ...data, approversList: approvers } });
    } else if (event.type === 'interrupt.resolved') {
      const id = String((event.payload as { interruptId?: unknown }).interruptId);
      plan.pending.delete(id);
      plan.resolved.add(id);
    } else if (CLEARS_RUN.has(event.type)) {
      for (const [id, row] of plan.pending) if (row.run_id === event.runId) plan.pending.delete(id);
      plan.clearedRuns.add(event.runId);
    }
  }

  private foldConversation(plan: BatchPlan, event: RunEventDoc, run: RunSnapshot): void {
    const id = conversationIdOf(event);
    if (id === undefined) return;
    const current = plan.conversations.has(id)
      ? plan.conversations.get(id)!.view
      : this.conversations.get(id)!;
    const change = evolveConversation(current, event);
    if (!change) return;
    // As the live projector reads it back between events (timestamps at millisecond precision).
    plan.conversations.set(id, {
      view: normalized(change.conversation),
      tenant: run.owner?.tenant ?? 'default',
    });
    const t = change.turn;
    if (!t) return;
    plan.turns.push({
      conversation_id: change.conversation.conversationId,
      turn_index: t.turnIndex,
      message_id: t.messageId,
      run_id: event.runId,
      role: t.role,
      from_id: t.from,
      speaker_id: t.speakerId ?? null,
      to_id: t.to ?? null,
      group_id: t.groupId ?? null,
      ...(t.agent === undefined ? {} : { agent: t.agent }),
      content: t.content ?? null,
      ts: storableNumber(t.ts, 0),
    });
  }

  /** The batch is stored: memory follows. */
  private commit(plan: BatchPlan): void {
    for (const [runId, state] of plan.runs) {
      this.remember(this.runs, runId, state);
      this.written?.add(`r:${runId}`);
    }
    for (const [id, c] of plan.conversations) {
      this.remember(this.conversations, id, c.view);
      this.written?.add(`c:${id}`);
    }
    this.stats.applied += plan.events.length;
    this.stats.held += plan.held;
    const stored = this.stored;
    if (!stored) return;
    const drop = (id: string) => {
      const runId = stored.byId.get(id);
      if (runId === undefined) return;
      stored.byId.delete(id);
      const ids = stored.byRun.get(runId)!;
      ids.delete(id);
      if (ids.size === 0) stored.byRun.delete(runId);
    };
    for (const id of plan.resolved) drop(id);
    for (const runId of plan.clearedRuns) for (const id of [...(stored.byRun.get(runId) ?? [])]) drop(id);
    for (const row of plan.pending.values()) {
      if (stored.byId.has(row.interrupt_id)) continue; // ON CONFLICT DO NOTHING
      stored.byId.set(row.interrupt_id, row.run_id);
      const ids = stored.byRun.get(row.run_id);
      if (ids) ids.add(row.interrupt_id);
      else stored.byRun.set(row.run_id, new Set([row.interrupt_id]));
    }
  }

  /**
   * The live projector's path for a batch the fold does not cover: each event in its own
   * transaction ({@link applyRunEvents}); an event that fails marks its run broken (later events
   * held), or, when the run has no row to mark, is counted as unstorable, as the live projector
   * dead-letters it. The batch's runs and conversations are reread afterwards.
   */
  private async fallback(events: readonly RunEventDoc[]): Promise<void> {
    this.stats.fallbacks++;
    for (const [runId, runEvents] of groupByRun(events)) {
      for (const event of runEvents) {
        try {
          const moved = await this.ds.transaction((m) =>
            applyRunEvents(m, [event], { onHeld: (_id, held) => (this.stats.held += held.length) }),
          );
          if (moved.length > 0) this.stats.applied++; // stored (a duplicate is not)
        } catch (error) {
          const failure = projectionErrorOf(event, error, this.now());
          const marked = await this.ds.transaction((m) => markProjectionBroken(m, runId, failure));
          if (marked) this.stats.broken++;
          else this.stats.unstorable++;
        }
      }
      this.runs.delete(runId);
      this.written?.add(`r:${runId}`);
    }
    for (const e of events) {
      const c = conversationIdOf(e);
      if (c === undefined) continue;
      this.conversations.delete(c);
      this.written?.add(`c:${c}`);
    }
    const stored = this.stored;
    if (!stored) return;
    // The live path wrote these runs' pending rows: read them back, so the deletes stay exact.
    const runIds = [...new Set(events.map((e) => e.runId))];
    for (const runId of runIds) for (const id of stored.byRun.get(runId) ?? []) stored.byId.delete(id);
    for (const runId of runIds) stored.byRun.delete(runId);
    const rows = await this.ds.query<{ interrupt_id: string; run_id: string }[]>(
      'SELECT interrupt_id, run_id FROM pending_interrupts WHERE run_id = ANY($1::text[])',
      [runIds],
    );
    for (const r of rows) {
      stored.byId.set(r.interrupt_id, r.run_id);
      const ids = stored.byRun.get(r.run_id);
      if (ids) ids.add(r.interrupt_id);
      else stored.byRun.set(r.run_id, new Set([r.interrupt_id]));
    }
  }
}

/** Events after which a run has no pending interrupt (as in the live projection). */
const CLEARS_RUN: ReadonlySet<string> = new Set([
  'run.completed',
  'run.failed',
  'run.cancelled',
  'node.cancelled',
]);

interface PendingRow {
  readonly interrupt_id: string;
  readonly run_id: string;
  readonly node_id: string;
  readonly tenant: string;
  readonly workflow_id: string;
  readonly kind: string;
  readonly key: string;
  readonly data: unknown;
  readonly timeout_ms: number | null;
  readonly requested_at: string;
}

interface TurnRow {
  readonly conversation_id: string;
  readonly turn_index: number;
  readonly message_id: string;
  readonly run_id: string;
  readonly role: string;
  readonly from_id: string;
  readonly speaker_id: string | null;
  readonly to_id: string | null;
  readonly group_id: string | null;
  readonly agent?: unknown;
  readonly content: unknown;
  readonly ts: number;
}

/** One batch, folded: what to write. */
interface BatchPlan {
  /** Events to store, in order. */
  readonly events: RunEventDoc[];
  /** Each run's state after the batch. */
  readonly runs: Map<string, RunState>;
  /** Each conversation's row after the batch. */
  readonly conversations: Map<string, { view: ConversationView; tenant: string }>;
  /** Turns to record, in order (a recorded index or message id is left as it is). */
  readonly turns: TurnRow[];
  /** Interrupts requested in the batch and still pending at its end (first request wins). */
  readonly pending: Map<string, PendingRow>;
  /** Interrupts resolved in the batch: their rows from earlier batches go. */
  readonly resolved: Set<string>;
  /** Runs that ended (or were cancelled at a node) in the batch: their earlier pending rows go. */
  readonly clearedRuns: Set<string>;
  /** Ids of events at or below their run's stored sequence: duplicates if stored, else a taken sequence. */
  readonly stale: string[];
  held: number;
}

/** Stale events must be stored already (a redelivery); one that is not takes a sequence: the live path decides. */
async function resolveStale(m: EntityManager, plan: BatchPlan): Promise<void> {
  if (plan.stale.length === 0) return;
  const unique = [...new Set(plan.stale)];
  const [row] = await m.query<{ n: number }[]>(
    'SELECT count(*)::int AS n FROM run_events WHERE event_id = ANY($1::text[])',
    [unique],
  );
  if (row!.n !== unique.length) throw new NeedsFallback();
}

/**
 * The batch's rows in five statements, each taking its rows as one JSON array (no bind-parameter
 * limit, one parse on the server). Deletes of pending rows come before the inserts, as in the
 * log: a request after a resolve or a run's end in the same batch stays.
 */
async function write(
  m: EntityManager,
  plan: BatchPlan,
  pendingDeletes: readonly string[] | undefined,
  ms: Record<string, number>,
): Promise<void> {
  const timed = async (name: string, sql: string, params: unknown[]): Promise<void> => {
    const t = performance.now();
    await m.query(sql, params);
    ms[name] = (ms[name] ?? 0) + performance.now() - t;
  };
  if (plan.events.length > 0) {
    await timed(
      'run_events',
      `INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc)
       SELECT e->>'eventId', e->>'runId', (e->>'sequence')::int, e->>'type', e->>'nodeId', e
       FROM jsonb_array_elements($1::jsonb) AS e`,
      [JSON.stringify(plan.events)],
    );
  }
  const runs = [...plan.runs.values()].map((r) => r.snapshot!);
  if (runs.length > 0) {
    await timed(
      'runs',
      `INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
       SELECT s->>'runId', coalesce(s->'owner'->>'tenant', 'default'), s->>'workflowId', s->>'status', s->>'currentNodeId',
         (s->>'lastSequence')::int, s, (s->>'createdAt')::timestamptz, (s->>'updatedAt')::timestamptz
       FROM jsonb_array_elements($1::jsonb) AS s
       ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, current_node_id = EXCLUDED.current_node_id,
         last_sequence = EXCLUDED.last_sequence, snapshot = EXCLUDED.snapshot, updated_at = EXCLUDED.updated_at`,
      [JSON.stringify(runs)],
    );
  }
  if (pendingDeletes) {
    if (pendingDeletes.length > 0) {
      await timed(
        'pending_interrupts_delete',
        'DELETE FROM pending_interrupts WHERE interrupt_id = ANY($1::text[])',
        [pendingDeletes],
      );
    }
  } else if (plan.resolved.size > 0 || plan.clearedRuns.size > 0) {
    await timed(
      'pending_interrupts_delete',
      'DELETE FROM pending_interrupts WHERE interrupt_id = ANY($1::text[]) OR run_id = ANY($2::text[])',
      [[...plan.resolved], [...plan.clearedRuns]],
    );
  }
  if (plan.pending.size > 0) {
    await timed(
      'pending_interrupts',
      `INSERT INTO pending_interrupts (interrupt_id, run_id, node_id, tenant, workflow_id, kind, key, data, timeout_ms, requested_at)
       SELECT p->>'interrupt_id', p->>'run_id', p->>'node_id', p->>'tenant', p->>'workflow_id', p->>'kind', p->>'key',
         p->'data', (p->>'timeout_ms')::double precision, (p->>'requested_at')::timestamptz
       FROM jsonb_array_elements($1::jsonb) AS p
       ON CONFLICT (interrupt_id) DO NOTHING`,
      [JSON.stringify([...plan.pending.values()])],
    );
  }
  if (plan.conversations.size > 0) {
    const rows = [...plan.conversations.values()].map(({ view: c, tenant }) => ({
      conversation_id: c.conversationId,
      run_id: c.runId,
      node_id: c.nodeId,
      tenant,
      status: c.status,
      ...(c.participants ? { participants: c.participants } : {}),
      turn_count: c.turnCount,
      opened_at: c.openedAt,
      closed_at: c.closedAt ?? null,
      ...(c.outcome === undefined ? {} : { outcome: c.outcome }),
      last_sequence: c.lastSequence,
    }));
    await timed(
      'conversations',
      `INSERT INTO conversations (conversation_id, run_id, node_id, tenant, status, participants, turn_count, opened_at, closed_at, outcome, last_sequence)
       SELECT c->>'conversation_id', c->>'run_id', c->>'node_id', c->>'tenant', c->>'status', c->'participants',
         (c->>'turn_count')::int, (c->>'opened_at')::timestamptz, (c->>'closed_at')::timestamptz, c->'outcome', (c->>'last_sequence')::int
       FROM jsonb_array_elements($1::jsonb) AS c
       ON CONFLICT (conversation_id) DO UPDATE SET status = EXCLUDED.status, participants = EXCLUDED.participants,
         turn_count = EXCLUDED.turn_count, opened_at = EXCLUDED.opened_at, closed_at = EXCLUDED.closed_at,
         outcome = EXCLUDED.outcome, last_sequence = EXCLUDED.last_sequence`,
      [JSON.stringify(rows)],
    );
  }
  if (plan.turns.length > 0) {
    await timed(
      'conversation_turns',
      `INSERT INTO conversation_turns (conversation_id, turn_index, message_id, run_id, role, from_id, speaker_id, to_id, group_id, agent, content, ts)
       SELECT t->>'conversation_id', (t->>'turn_index')::int, t->>'message_id', t->>'run_id', t->>'role', t->>'from_id',
         t->>'speaker_id', t->>'to_id', t->>'group_id', t->'agent', t->'content', (t->>'ts')::double precision
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(t, n) ORDER BY n
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(plan.turns)],
    );
  }
}

/** A statement the database refused (a value, a constraint, a deadlock): the batch goes the live path's way. */
function isStatementError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    /^(22|23|40|54)/.test((error as { code: string }).code)
  );
}

/** The view as {@link viewOf} reads it back from its row. */
function normalized(c: ConversationView): ConversationView {
  const { closedAt, outcome, ...rest } = c;
  return {
    ...rest,
    openedAt: new Date(c.openedAt).toISOString(),
    ...(closedAt ? { closedAt: new Date(closedAt).toISOString(), outcome: outcome ?? null } : {}),
  };
}

/** A Bloom filter of strings: `has` is never false for an added key; `bits` a power of two. */
class BloomFilter {
  private readonly words: Uint32Array;
  private readonly mask: number;
  constructor(bits: number) {
    this.words = new Uint32Array(bits >>> 5);
    this.mask = bits - 1;
  }
  add(key: string): void {
    for (const bit of this.bits(key)) this.words[bit >>> 5]! |= 1 << (bit & 31);
  }
  has(key: string): boolean {
    for (const bit of this.bits(key)) if ((this.words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    return true;
  }
  /** Five positions by double hashing of two 32-bit FNV-1a variants. */
  private *bits(key: string): Generator<number> {
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    h2 |= 1;
    for (let i = 0; i < 5; i++) yield (h1 + Math.imul(i, h2)) & this.mask;
  }
}

/** A 31-bit FNV-1a hash, to share runs between writers. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 1;
}
