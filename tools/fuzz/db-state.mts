/**
 * Snapshots of the host's Postgres state for the fuzzer: every table the services write, one md5 per
 * row keyed by its primary key, so a batch of requests can be checked for writes it must not cause.
 */
import pg from 'pg';

/** A table, its primary key expression and what a row belongs to (run id, workflow id, …). */
interface TableSpec {
  readonly name: string;
  readonly key: string;
  /** SQL expressions naming the owners of a row; a change is intended when one is a batch target. */
  readonly owners: readonly string[];
}

/** Tables of libs/platform-db/src/migrations with a primary key and owners of their own. */
const KNOWN: readonly TableSpec[] = [
  { name: 'runs', key: 'run_id', owners: ['run_id'] },
  { name: 'engine_runs', key: 'run_id', owners: ['run_id'] },
  { name: 'run_events', key: 'event_id', owners: ['run_id'] },
  { name: 'pending_interrupts', key: 'interrupt_id', owners: ['run_id'] },
  { name: 'interrupts', key: 'interrupt_id', owners: ['run_id'] },
  { name: 'interrupt_cancelled_runs', key: 'run_id', owners: ['run_id'] },
  { name: 'token_runs', key: 'run_id', owners: ['run_id'] },
  { name: 'resolution_tokens', key: 'interrupt_id', owners: ['run_id'] },
  { name: 'workflows', key: "tenant || '/' || workflow_id", owners: ['workflow_id'] },
  { name: 'outbox', key: 'id::text', owners: ['key', "value->>'runId'", "value->'payload'->>'runId'"] },
  { name: 'processed_messages', key: "consumer || '/' || message_id", owners: [] },
  // The audit chain records a decision on its run; the tenant's head moves with its latest record.
  { name: 'audit_records', key: "tenant || '/' || seq", owners: ["record->>'runId'"] },
  {
    name: 'audit_heads',
    key: 'tenant',
    owners: ["(SELECT r.record->>'runId' FROM audit_records r WHERE r.tenant = x.tenant AND r.seq = x.seq)"],
  },
];

/** TypeORM's own bookkeeping. */
const IGNORED = new Set(['migrations', 'typeorm_metadata']);

/**
 * Every table of the database: the known ones as above; any other (added by a later migration) keyed
 * by its whole row, owned by its `run_id`, `workflow_id` or the run part of a `conversation_id`.
 */
async function discoverTables(pool: pg.Pool): Promise<TableSpec[]> {
  const { rows } = await pool.query<{ t: string; c: string[] }>(
    `SELECT table_name AS t, array_agg(column_name::text) AS c FROM information_schema.columns
     WHERE table_schema = 'public' GROUP BY table_name ORDER BY table_name`,
  );
  return rows
    .filter((r) => !IGNORED.has(r.t))
    .map((r) => {
      const known = KNOWN.find((k) => k.name === r.t);
      if (known) return known;
      const owners = [
        ...(r.c.includes('run_id') ? ['run_id'] : []),
        ...(r.c.includes('workflow_id') ? ['workflow_id'] : []),
        ...(r.c.includes('conversation_id') ? ["split_part(conversation_id::text, ':', 1)"] : []),
      ];
      return { name: r.t, key: 'md5(x::text)', owners };
    });
}

/** One row's digest and its owners. */
export interface RowState {
  readonly hash: string;
  readonly owners: readonly string[];
}

/** table → primary key → row. */
export type Snapshot = Map<string, Map<string, RowState>>;

/** One changed row. */
export interface RowChange {
  readonly table: string;
  readonly key: string;
  readonly kind: 'inserted' | 'updated' | 'deleted';
  readonly owners: readonly string[];
}

export class DbState {
  private readonly pool: pg.Pool;
  private tables: TableSpec[] = [];

  private constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  static async connect(url: string): Promise<DbState> {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const state = new DbState(pool);
    await state.refreshTables();
    return state;
  }

  /** Re-reads the table list (the host migrates at start). */
  async refreshTables(): Promise<string[]> {
    this.tables = await discoverTables(this.pool);
    return this.tables.map((t) => t.name);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** One digest of everything: cheap enough to poll until the host is quiet. */
  async checksum(): Promise<string> {
    const parts = this.tables.map(
      (t) =>
        `SELECT '${t.name}' AS t, count(*)::text AS n, coalesce(md5(string_agg(md5(x::text), '' ORDER BY ${t.key})), '') AS h FROM ${t.name} x`,
    );
    const { rows } = await this.pool.query<{ t: string; n: string; h: string }>(parts.join(' UNION ALL '));
    return rows.map((r) => `${r.t}:${r.n}:${r.h}`).join('|');
  }

  /** Row counts per table. */
  async counts(): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ t: string; n: string }>(
      this.tables
        .map((t) => `SELECT '${t.name}' AS t, count(*)::text AS n FROM ${t.name}`)
        .join(' UNION ALL '),
    );
    return Object.fromEntries(rows.map((r) => [r.t, Number(r.n)]));
  }

  async snapshot(): Promise<Snapshot> {
    const snap: Snapshot = new Map();
    for (const t of this.tables) {
      const owners = t.owners.length
        ? `ARRAY[${t.owners.map((o) => `coalesce((${o})::text, '')`).join(', ')}]`
        : 'ARRAY[]::text[]';
      const { rows } = await this.pool.query<{ k: string; h: string; o: string[] }>(
        `SELECT ${t.key} AS k, md5(x::text) AS h, ${owners} AS o FROM ${t.name} x`,
      );
      snap.set(t.name, new Map(rows.map((r) => [r.k, { hash: r.h, owners: r.o.filter(Boolean) }])));
    }
    return snap;
  }

  /**
   * Waits until two checksums `gapMs` apart agree (the host finished the effects of earlier
   * requests: outbox relays, projections, token minting); false when `timeoutMs` passed first.
   * The gap outlasts the host's longest deliberate delay of an effect: the notifier gathers run
   * events for 250 ms (`NOTIFIER_GATHER_MS`, on Kafka and in-process alike), and in one process a
   * published outbox row's delete waits up to 200 ms for a decision to ride on (ADR 0039).
   */
  async quiesce(timeoutMs = 15_000, gapMs = 350): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let last = await this.checksum();
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, gapMs));
      const next = await this.checksum();
      if (next === last) return true;
      last = next;
    }
    return false;
  }
}

export function diff(before: Snapshot, after: Snapshot): RowChange[] {
  const changes: RowChange[] = [];
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(table) ?? new Map<string, RowState>();
    const b = after.get(table) ?? new Map<string, RowState>();
    for (const [key, row] of b) {
      const old = a.get(key);
      if (!old) changes.push({ table, key, kind: 'inserted', owners: row.owners });
      else if (old.hash !== row.hash) changes.push({ table, key, kind: 'updated', owners: row.owners });
    }
    for (const [key, row] of a)
      if (!b.has(key)) changes.push({ table, key, kind: 'deleted', owners: row.owners });
  }
  return changes;
}
