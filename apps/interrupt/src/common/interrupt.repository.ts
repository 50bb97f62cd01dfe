import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  escalationDueAt,
  interruptStateDocument,
  interruptStateFromDocument,
  type InterruptState,
  type PendingInterrupt,
} from '@openwop/interrupt-domain';
import {
  chunksWithinParameterLimit,
  holdWrite,
  ReadAhead,
  takeReadAhead,
  valuesTuples,
  type ReadAheadPart,
} from '@openwop/platform-db';
import { INTERRUPT_DUE_TIMES } from './interrupt-due-times';

/**
 * The timer's due columns: the deadline, the next escalation step (ADR 0034), and the end of the
 * claim's lease (ADR 0035; cleared when the claim ends, so a told lapse is not due again).
 */
export type DueColumn = 'deadline_at' | 'escalation_due_at' | 'claim_expires_at';

/** A held interrupt (any state but `none`). */
export type HeldInterrupt = Exclude<InterruptState, { status: 'none' }>;

/**
 * In one process, a resolve's decision reads in its first statement the rows of the run that the
 * engine's resume (decided through, ADR 0038) and its projection lock next (ADR 0039, read-ahead.ts).
 */
const AHEAD_OF_RESOLVE = ['engine_runs', 'runs'] as const;

/**
 * A run's interrupts, locked, and the tenants that cancelled it, for the first statement of an engine
 * decision in one process (its start): the opens it decides through take them from there
 * ({@link InterruptRepository.lockByIdForOpen}, ADR 0039, read-ahead.ts).
 */
export const RUN_INTERRUPTS_READ_AHEAD: ReadAheadPart = {
  table: 'interrupts',
  reads: ['interrupts', 'interrupt_cancelled_runs'],
  select: (runId) =>
    `json_build_object(
       'states', (SELECT coalesce(json_agg(i.state), '[]'::json)
                    FROM (SELECT state FROM interrupts WHERE run_id = ${runId} FOR UPDATE) i),
       'cancelledBy', (SELECT coalesce(json_agg(c.tenant), '[]'::json) FROM interrupt_cancelled_runs c WHERE c.run_id = ${runId}))`,
};

interface RunInterruptsAhead {
  readonly states: readonly object[];
  readonly cancelledBy: readonly string[];
}

/**
 * What {@link InterruptRepository.lockByIdForOpen} would read, from the run's interrupts read ahead;
 * undefined when none were. Only for an id of the run's own form (`<runId>:<nodeId>:<n>`, the engine's
 * `interruptOpened`): run ids are UUID-shaped (the gateway's, `childRunIdFor`'s) and hold no `:`, so
 * a row with such an id belongs to that run, and the run's rows hold it if it exists.
 */
function openReadAhead(
  manager: EntityManager,
  interruptId: string,
  runId: string,
  tenant: string,
): { state: InterruptState; runCancelled: boolean } | undefined {
  if (!interruptId.startsWith(`${runId}:`)) return undefined;
  const ahead = takeReadAhead<RunInterruptsAhead>(manager, RUN_INTERRUPTS_READ_AHEAD.table, runId);
  if (!ahead?.value) return undefined;
  const state =
    ahead.value.states
      .map((doc) => interruptStateFromDocument(doc))
      .find((s) => s.status !== 'none' && s.interrupt.interruptId === interruptId) ??
    interruptStateFromDocument(undefined);
  return { state, runCancelled: ahead.value.cancelledBy.includes(tenant) };
}

/** Saves held per transaction (see {@link InterruptRepository.holdSaves}). */
const heldSaves = new WeakMap<EntityManager, Map<string, HeldInterrupt>>();

/**
 * The `interrupts` table: the aggregate's state as JSON plus the columns lookups and the timer
 * need. Every read here locks the rows it returns (`FOR UPDATE`) for the caller's transaction.
 */
@Injectable()
export class InterruptRepository {
  /** The interrupt with this id, or `none`. */
  async lockById(manager: EntityManager, interruptId: string): Promise<InterruptState> {
    await writeHeld(manager);
    const more = ReadAhead.columns(manager, AHEAD_OF_RESOLVE, '(SELECT run_id FROM held)');
    const [row] = await manager.query<
      ({ state: object | null; run_id: string | null } & Record<string, unknown>)[]
    >(
      `WITH held AS (SELECT state, run_id FROM interrupts WHERE interrupt_id = $1 FOR UPDATE)
       SELECT (SELECT state FROM held) AS state, (SELECT run_id FROM held) AS run_id${more.sql}`,
      [interruptId],
    );
    if (row?.run_id) more.keep(row, row.run_id);
    return interruptStateFromDocument(row?.state ?? undefined);
  }

  /**
   * The interrupt with this id, or `none`, and whether tenant `tenant` cancelled run `runId` (which an
   * interrupt not yet held must not open on), in one statement.
   */
  async lockByIdForOpen(
    manager: EntityManager,
    interruptId: string,
    runId: string,
    tenant: string,
  ): Promise<{ state: InterruptState; runCancelled: boolean }> {
    await writeHeld(manager);
    const ahead = openReadAhead(manager, interruptId, runId, tenant);
    if (ahead) return ahead;
    const [row] = await manager.query<{ state: object | null; run_cancelled: boolean }[]>(
      `WITH held AS (SELECT state FROM interrupts WHERE interrupt_id = $1 FOR UPDATE)
       SELECT (SELECT state FROM held) AS state,
         EXISTS (SELECT 1 FROM interrupt_cancelled_runs WHERE run_id = $2 AND tenant = $3) AS run_cancelled`,
      [interruptId, runId, tenant],
    );
    return { state: interruptStateFromDocument(row?.state), runCancelled: row?.run_cancelled ?? false };
  }

  /**
   * The interrupt a run-scoped resolve addresses: the pending one on (run, node), else the newest
   * decided one (so a late resolve learns why it lost). The WHERE clause deliberately ignores
   * status: a resolve that waited on the lock of a concurrent winner still finds the row, now
   * resolved, and is refused with `interrupt_already_resolved` rather than `interrupt_not_found`.
   */
  async lockForResolve(manager: EntityManager, runId: string, nodeId: string): Promise<InterruptState> {
    await writeHeld(manager);
    const more = ReadAhead.columns(manager, AHEAD_OF_RESOLVE, '$1');
    const [row] = await manager.query<({ state: object | null } & Record<string, unknown>)[]>(
      `WITH held AS (SELECT state FROM interrupts WHERE run_id = $1 AND node_id = $2
         ORDER BY (status = 'pending') DESC, created_at DESC, interrupt_id DESC LIMIT 1 FOR UPDATE)
       SELECT (SELECT state FROM held) AS state${more.sql}`,
      [runId, nodeId],
    );
    more.keep(row, runId);
    return interruptStateFromDocument(row?.state ?? undefined);
  }

  async lockPendingOfRun(manager: EntityManager, runId: string): Promise<PendingInterrupt[]> {
    await writeHeld(manager);
    const rows = await manager.query<{ state: object }[]>(
      `SELECT state FROM interrupts WHERE run_id = $1 AND status = 'pending' ORDER BY created_at FOR UPDATE`,
      [runId],
    );
    return rows.map((r) => interruptStateFromDocument<PendingInterrupt>(r.state));
  }

  /**
   * Claims up to `limit` pending interrupts past their deadline that no other instance holds, leaving
   * out `skip` (rows that failed this tick); with `only`, just that interrupt if it is still due.
   */
  claimDue(
    manager: EntityManager,
    now: string,
    limit: number,
    skip: readonly string[] = [],
    only?: string,
  ): Promise<PendingInterrupt[]> {
    return this.claimDueBy(manager, 'deadline_at', now, limit, skip, only);
  }

  /**
   * As {@link claimDue} on `column`: `deadline_at`, or `escalation_due_at` for interrupts whose next
   * escalation step is due (ADR 0034).
   */
  async claimDueBy(
    manager: EntityManager,
    column: DueColumn,
    now: string,
    limit: number,
    skip: readonly string[],
    only: string | undefined,
  ): Promise<PendingInterrupt[]> {
    await writeHeld(manager);
    const rows = await manager.query<{ state: object }[]>(
      `SELECT state FROM interrupts WHERE status = 'pending' AND ${column} <= $1::timestamptz
         AND NOT (interrupt_id = ANY($3::text[])) AND ($4::text IS NULL OR interrupt_id = $4)
       ORDER BY ${column} LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit, [...skip], only ?? null],
    );
    return rows.map((r) => interruptStateFromDocument<PendingInterrupt>(r.state));
  }

  /**
   * As {@link claimDueBy} for the timer's batches: the rows due on `column` from `from` on (none:
   * from the first), and how far the batch reached (the last row's due time). A batch after the
   * first starts where the one before it ended: a storm expires its rows in place, and until a
   * vacuum their entries stay in the partial index, so a scan from its start would read every row
   * decided so far again (a claim of 200 took 20–190 ms once 60,000 had expired; round 11 of
   * docs/performance-log.md). Rows left behind (locked by another instance) are the next tick's.
   */
  async claimDueBatch(
    manager: EntityManager,
    column: DueColumn,
    now: string,
    limit: number,
    skip: readonly string[],
    from: string | undefined,
  ): Promise<{ due: PendingInterrupt[]; reached: string | undefined }> {
    await writeHeld(manager);
    const rows = await manager.query<{ state: object; due: string }[]>(
      `SELECT state, ${column}::text AS due FROM interrupts
        WHERE status = 'pending' AND ${column} <= $1::timestamptz
          AND ${column} >= COALESCE($4::timestamptz, '-infinity'::timestamptz)
          AND NOT (interrupt_id = ANY($3::text[]))
        ORDER BY ${column} LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit, [...skip], from ?? null],
    );
    return {
      due: rows.map((r) => interruptStateFromDocument<PendingInterrupt>(r.state)),
      reached: rows.length > 0 ? rows[rows.length - 1]!.due : from,
    };
  }

  /**
   * The ids of up to `limit` rows due on `column` (not `skip`), without reading their state: what
   * the timer retries one by one when a batch failed (a row whose state cannot be read included).
   */
  async dueIds(
    manager: EntityManager,
    column: DueColumn,
    now: string,
    limit: number,
    skip: readonly string[],
  ): Promise<string[]> {
    await writeHeld(manager);
    const rows = await manager.query<{ interrupt_id: string }[]>(
      `SELECT interrupt_id FROM interrupts WHERE status = 'pending' AND ${column} <= $1::timestamptz
         AND NOT (interrupt_id = ANY($3::text[]))
       ORDER BY ${column} LIMIT $2`,
      [now, limit, [...skip]],
    );
    return rows.map((r) => r.interrupt_id);
  }

  /** True when the run has an interrupt of another tenant (the run is not the caller's). */
  async heldByOtherTenant(manager: EntityManager, runId: string, tenant: string): Promise<boolean> {
    await writeHeld(manager);
    const rows = await manager.query<unknown[]>(
      'SELECT 1 FROM interrupts WHERE run_id = $1 AND tenant <> $2 LIMIT 1',
      [runId, tenant],
    );
    return rows.length > 0;
  }

  /**
   * From now on, what {@link save} writes in the transaction of `manager` is kept in memory (the last
   * state of each interrupt) until {@link flushSaves} writes it in one statement: the timer's batch
   * of decisions. A read of this repository in that transaction writes what is held first.
   */
  holdSaves(manager: EntityManager): void {
    heldSaves.set(manager, new Map());
  }

  /** Writes the held saves of `manager`'s transaction in one statement and stops holding. */
  async flushSaves(manager: EntityManager): Promise<void> {
    const held = heldSaves.get(manager);
    heldSaves.delete(manager);
    if (held && held.size > 0) await writeStates(manager, [...held.values()]);
  }

  /** Stops holding without writing (the transaction is rolling back). */
  dropSaves(manager: EntityManager): void {
    heldSaves.delete(manager);
  }

  async save(manager: EntityManager, state: HeldInterrupt): Promise<void> {
    const held = heldSaves.get(manager);
    if (held) {
      held.delete(state.interrupt.interruptId);
      held.set(state.interrupt.interruptId, state);
      return;
    }
    await writeStates(manager, [state]);
  }

  async markRunCancelled(
    manager: EntityManager,
    runId: string,
    tenant: string,
    reason: string | undefined,
  ): Promise<void> {
    await manager.query(
      'INSERT INTO interrupt_cancelled_runs (run_id, tenant, reason) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING',
      [runId, tenant, reason ?? null],
    );
  }
}

const STATE_COLUMNS = 12;

/** Writes what `manager`'s transaction holds (if anything) before a read, and keeps holding. */
async function writeHeld(manager: EntityManager): Promise<void> {
  const held = heldSaves.get(manager);
  if (!held || held.size === 0) return;
  const states = [...held.values()];
  held.clear();
  await writeStates(manager, states);
}

/** One multi-row upsert of `states` (each interrupt once), chunked below the bind parameter limit. */
async function writeStates(manager: EntityManager, states: readonly HeldInterrupt[]): Promise<void> {
  INTERRUPT_DUE_TIMES.wrote(manager, states.flatMap(dueTimesOf));
  for (const chunk of chunksWithinParameterLimit(states, STATE_COLUMNS)) {
    const params: unknown[] = [];
    for (const state of chunk) params.push(...stateRow(state));
    // Held in a decision's transaction: it goes out with the closing statement (ADR 0039).
    await holdWrite(manager, {
      sql: `INSERT INTO interrupts (interrupt_id, run_id, node_id, tenant, kind, key, status, state, deadline_at, claimed_by, claim_expires_at, escalation_due_at)
       VALUES ${valuesTuples(chunk.length, STATE_CASTS)}
       ON CONFLICT (interrupt_id) DO UPDATE SET status = EXCLUDED.status, state = EXCLUDED.state,
         claimed_by = EXCLUDED.claimed_by, claim_expires_at = EXCLUDED.claim_expires_at,
         escalation_due_at = EXCLUDED.escalation_due_at, updated_at = now()`,
      params,
      tables: ['interrupts'],
    });
  }
}

const STATE_CASTS = [
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '::jsonb',
  '::timestamptz',
  '',
  '::timestamptz',
  '::timestamptz',
];

/** When the timer has work on `state`: its deadline, its claim's lease, its next escalation step. */
function dueTimesOf(state: HeldInterrupt): (string | undefined)[] {
  if (state.status !== 'pending') return [];
  return [state.interrupt.deadlineAt, state.claim?.expiresAt, escalationDueAt(state)];
}

function stateRow(state: HeldInterrupt): unknown[] {
  const i = state.interrupt;
  return [
    i.interruptId,
    i.runId,
    i.nodeId,
    i.tenant,
    i.kind,
    i.key,
    state.status,
    JSON.stringify(interruptStateDocument(state)),
    i.deadlineAt ?? null,
    // The claim in columns, so the inbox filters and shows it (its lease is compared on read).
    (state.status === 'pending' && state.claim?.claimedBy) || null,
    (state.status === 'pending' && state.claim?.expiresAt) || null,
    // The next escalation step's due time (ADR 0034), null once decided or every step is done.
    escalationDueAt(state) ?? null,
  ];
}
