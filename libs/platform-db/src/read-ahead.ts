import type { DataSource, EntityManager } from 'typeorm';

/**
 * Rows a decision reads once (ADR 0039, "nothing read twice"). In the one-process host a decision
 * runs several steps in one transaction: the interrupt service's decision of a resolve, the
 * engine's resume it decides through, the projection of the engine's events. Each step used to lock
 * and read its own row of the run in a statement of its own. Here the first statement of the
 * decision reads, beside its own row, the rows of the run the later steps will lock, and those steps
 * take them from memory.
 *
 * A table's owner registers the part that reads its row ({@link ReadAhead.register}, the SQL stays
 * in the owning app); a step asks for parts by name in its first statement
 * ({@link ReadAhead.columns}); a later step takes its row ({@link takeReadAhead}) or, when none was
 * read ahead, reads it as before.
 *
 * A row read ahead is what a read of it would return at that point of the transaction only while
 * nothing has touched its table since: the part locks what it reads (`FOR UPDATE`) as the step
 * would, so no other transaction changes it, and a row is forgotten as soon as a statement of the
 * transaction (or a held write, see held-writes.ts) names its table. A row is taken once.
 *
 * Only transactions that hold writes (those of {@link transaction}, which report each statement)
 * read ahead: elsewhere {@link ReadAhead.columns} asks for nothing.
 */
export interface ReadAheadPart {
  /** The table whose row it reads (the name a step asks for and takes it by). */
  readonly table: string;
  /** Every table its SQL reads, `table` among them: a statement naming one forgets the row. */
  readonly reads: readonly string[];
  /**
   * A scalar SQL expression of one value (json, jsonb, or NULL when there is nothing), given the
   * SQL expression of the run id; it locks what it reads when the step that takes it would.
   */
  readonly select: (runId: string) => string;
}

/** The parts of each process's data source, each with how many registered it (instances of a module). */
const partsBy = new WeakMap<DataSource, Map<string, { readonly part: ReadAheadPart; count: number }>>();

interface ReadRows {
  readonly reads: readonly string[];
  readonly byRun: Map<string, unknown>;
}

/** What the transaction of a manager read ahead: per table, per run id, the value. */
const readBy = new WeakMap<EntityManager, Map<string, ReadRows>>();

/** Transactions that may read ahead (they report their statements to {@link forgetNamedTables}). */
const reporting = new WeakSet<EntityManager>();

export class ReadAhead {
  /**
   * Registers `part` for the data source `ds` (several instances of a module may each register the
   * same part); returns the unregistering function.
   */
  static register(ds: DataSource, part: ReadAheadPart): () => void {
    let parts = partsBy.get(ds);
    if (!parts) {
      parts = new Map();
      partsBy.set(ds, parts);
    }
    const held = parts.get(part.table);
    if (held && held.part !== part) throw new Error(`another read-ahead of ${part.table} is registered`);
    if (held) held.count++;
    else parts.set(part.table, { part, count: 1 });
    let registered = true;
    return () => {
      const now = partsBy.get(ds)?.get(part.table);
      if (!registered || !now) return;
      registered = false;
      if (--now.count === 0) partsBy.get(ds)!.delete(part.table);
    };
  }

  /**
   * The columns to add to a step's first statement (`, <expr> AS "ahead:<table>"`, or '' when
   * nothing is read ahead here) for run `runId` (its SQL expression), and `keep`, which stores what
   * the statement returned for the later steps of the transaction.
   */
  static columns(
    manager: EntityManager,
    tables: readonly string[],
    runId: string,
  ): {
    readonly sql: string;
    readonly keep: (row: Record<string, unknown> | undefined, run: string) => void;
  } {
    const parts = reporting.has(manager) ? partsBy.get(manager.dataSource) : undefined;
    const asked = parts ? tables.flatMap((t) => parts.get(t)?.part ?? []) : [];
    if (asked.length === 0) return { sql: '', keep: () => undefined };
    return {
      sql: asked.map((p) => `, ${p.select(runId)} AS "${columnOf(p.table)}"`).join(''),
      keep: (row, run) => {
        if (!row) return;
        let read = readBy.get(manager);
        if (!read) {
          read = new Map();
          readBy.set(manager, read);
        }
        for (const p of asked) {
          let rows = read.get(p.table);
          if (!rows) {
            rows = { reads: p.reads, byRun: new Map() };
            read.set(p.table, rows);
          }
          rows.byRun.set(run, row[columnOf(p.table)] ?? null);
        }
      },
    };
  }
}

function columnOf(table: string): string {
  return `ahead:${table}`;
}

/**
 * The row of `table` for `runId` that the transaction of `manager` read ahead, taken (a second call
 * finds none); `undefined` when none was read ahead (read it yourself). `{ value: null }`: there was
 * no row.
 */
export function takeReadAhead<T>(
  manager: EntityManager,
  table: string,
  runId: string,
): { readonly value: T | null } | undefined {
  const byRun = readBy.get(manager)?.get(table)?.byRun;
  if (!byRun?.has(runId)) return undefined;
  const value = byRun.get(runId) as T | null;
  byRun.delete(runId);
  return { value };
}

/** The transaction of `manager` reports its statements: it may read ahead (held-writes.ts). */
export function mayReadAheadIn(manager: EntityManager): void {
  reporting.add(manager);
}

/** Forgets what the transaction of `manager` read ahead of the tables `named` says it touches. */
export function forgetNamedTables(manager: EntityManager, named: (table: string) => boolean): void {
  const read = readBy.get(manager);
  if (!read) return;
  for (const [table, rows] of [...read]) if (rows.reads.some(named)) read.delete(table);
}
