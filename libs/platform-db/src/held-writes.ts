import type { EntityManager } from 'typeorm';
import { MAX_BIND_PARAMETERS } from './parameter-chunks';
import { forgetNamedTables, mayReadAheadIn } from './read-ahead';

/**
 * A decision's writes as one statement (ADR 0039, "a decision's statements are one data-modifying
 * CTE"). Inside a transaction of {@link transaction}, a write whose result nobody needs is held
 * ({@link holdWrite}) instead of sent; the transaction's closing statement (the outbox rows and the
 * dedupe record, `writeHeldDecisions`) carries every held write as a CTE of its own, and a
 * transaction without one flushes them, in one statement, right before its COMMIT.
 *
 * Reads stay correct without the callers' help: while writes are held, any statement of the
 * transaction that names a table a held write touches sends the held writes first (one statement),
 * so a read never misses what its own transaction wrote and two writes of one row are never in one
 * statement (a decision reads what it changes before changing it, which flushes the earlier write).
 *
 * The held writes of one statement are the CTEs of a `WITH`: they see the same snapshot and none
 * sees another's rows. So they touch different tables (a second write to a table a held write
 * touches sends the held ones first), and no table of ours has a foreign key a held write could
 * break mid-statement (the checks run at the statement's end anyway).
 *
 * Outside such a transaction, {@link holdWrite} sends the write at once.
 */
export interface HeldWrite {
  /** One data-modifying statement without a `WITH` of its own; `$1…` are its own parameters. */
  readonly sql: string;
  readonly params: readonly unknown[];
  /** The tables it writes: a later statement naming one of them sends the held writes first. */
  readonly tables: readonly string[];
}

interface Held {
  readonly writes: HeldWrite[];
  readonly send: EntityManager['query'];
}

const heldBy = new WeakMap<EntityManager, Held>();

/** Statements that failed while sending held writes (the transaction's owner may take it again). */
const failedSends = new WeakSet<object>();

/** Whether `error` came from a statement that carried held writes. */
export function failedInHeldWrites(error: unknown): boolean {
  return typeof error === 'object' && error !== null && failedSends.has(error);
}

/**
 * From now on, writes of the transaction of `manager` may be held ({@link holdWrite}); any other
 * statement it sends that names a held write's table sends the held writes first.
 */
export function holdWritesIn(manager: EntityManager): void {
  if (heldBy.has(manager)) return;
  const send: EntityManager['query'] = manager.query.bind(manager);
  const held: Held = { writes: [], send };
  heldBy.set(manager, held);
  mayReadAheadIn(manager);
  const query = async (sql: string, params?: unknown[]): Promise<unknown> => {
    // Rows read ahead (read-ahead.ts) stand only until a statement touches their table.
    forgetNamedTables(manager, (table) => tablePattern(table).test(sql));
    if (held.writes.length > 0 && namesHeldTable(sql, held.writes)) await flushHeldWrites(manager);
    return send<unknown>(sql, params);
  };
  Object.defineProperty(manager, 'query', { value: query, configurable: true, writable: true });
}

/** Holds `write` in the transaction of `manager` when it holds writes; else sends it now. */
export async function holdWrite(manager: EntityManager, write: HeldWrite): Promise<void> {
  const held = heldBy.get(manager);
  if (!held) {
    await manager.query(write.sql, [...write.params]);
    return;
  }
  forgetNamedTables(manager, (table) => write.tables.includes(table));
  // Two writes of one table never share a statement: neither would see the other's rows. Nor do
  // more parameters than a statement may bind.
  if (
    held.writes.some((w) => w.tables.some((t) => write.tables.includes(t))) ||
    paramsOf(held.writes) + write.params.length > MAX_BIND_PARAMETERS
  ) {
    await flushHeldWrites(manager);
  }
  held.writes.push(write);
}

/** Sends what the transaction of `manager` holds, in one statement (nothing when it holds nothing). */
export async function flushHeldWrites(manager: EntityManager): Promise<void> {
  const held = heldBy.get(manager);
  if (!held || held.writes.length === 0) return;
  const writes = held.writes.splice(0);
  const params: unknown[] = [];
  const ctes = heldWriteCtes(writes, params);
  await sendCarrying(held, `WITH ${ctes.join(', ')} SELECT 1`, params);
}

/**
 * Takes the held writes of the transaction of `manager` as CTEs (`hw0 AS (…)`, …) numbered after
 * the parameters already in `params` (to which theirs are added): for a statement that carries them.
 * Its failure must be reported with {@link sentHeldWrites}.
 */
export async function takeHeldWrites(manager: EntityManager, params: unknown[]): Promise<string[]> {
  const held = heldBy.get(manager);
  if (!held || held.writes.length === 0) return [];
  if (params.length + paramsOf(held.writes) > MAX_BIND_PARAMETERS) {
    await flushHeldWrites(manager);
    return [];
  }
  return heldWriteCtes(held.writes.splice(0), params);
}

function paramsOf(writes: readonly HeldWrite[]): number {
  return writes.reduce((n, w) => n + w.params.length, 0);
}

/** Sends `sql` on the transaction of `manager`; a failure is marked as one that carried held writes. */
export async function sendWithHeldWrites<T>(
  manager: EntityManager,
  sql: string,
  params: unknown[],
  carried: boolean,
): Promise<T> {
  const held = heldBy.get(manager);
  if (!held || !carried) return manager.query<T>(sql, params);
  return sendCarrying<T>(held, sql, params);
}

async function sendCarrying<T>(held: Held, sql: string, params: unknown[]): Promise<T> {
  try {
    return await held.send<T>(sql, params);
  } catch (error) {
    if (typeof error === 'object' && error !== null) failedSends.add(error);
    throw error;
  }
}

function heldWriteCtes(writes: readonly HeldWrite[], params: unknown[]): string[] {
  return writes.map((w, i) => {
    const offset = params.length;
    params.push(...w.params);
    return `hw${i} AS (${renumbered(w.sql, offset)})`;
  });
}

/** `sql` with each `$n` moved to `$(n + offset)`. Our held statements hold no `$` in literals. */
export function renumbered(sql: string, offset: number): string {
  if (offset === 0) return sql;
  return sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

function namesHeldTable(sql: string, writes: readonly HeldWrite[]): boolean {
  for (const w of writes) {
    for (const table of w.tables) if (tablePattern(table).test(sql)) return true;
  }
  return false;
}

const patterns = new Map<string, RegExp>();

/** The table's name as a whole word (`runs` is not in `engine_runs`). */
function tablePattern(table: string): RegExp {
  let p = patterns.get(table);
  if (!p) {
    p = new RegExp(`(?<![\\w.])${table}(?!\\w)`);
    patterns.set(table, p);
  }
  return p;
}
