import type { DataSource, QueryRunner } from 'typeorm';

/** How often the host vacuums the database when nothing else does (see {@link PeriodicVacuum}). */
export const VACUUM_EVERY_MS = 10_000;

/** Arbitrary constant of the session lock that keeps one pass at a time across every process. */
export const VACUUM_LOCK = 7_420_003;

/**
 * Whether the host must vacuum the database itself: on PGlite, Postgres in single-user mode, there is
 * no autovacuum at all; a Postgres server may have it turned off (`autovacuum = off`).
 */
export async function needsOwnVacuum(ds: DataSource, embedded: boolean): Promise<boolean> {
  if (embedded) return true;
  const [row] = await ds.query<{ autovacuum: string }[]>(
    `SELECT current_setting('autovacuum') AS autovacuum`,
  );
  return row?.autovacuum !== 'on';
}

/**
 * Vacuums the database every `everyMs`, for a database that nothing else vacuums. Without it:
 * - the space of every deleted or updated row stays in the tables, and every scan reads it again.
 *   The outbox, a row per message deleted once published, grew to 16 MB in 3,000 HITL cycles
 *   while holding no row;
 * - the statistics never change, so the plans each connection cached for its prepared statements
 *   while the tables were empty (sequential scans) are never made again, and each statement reads
 *   the whole table (docs/performance-log.md, round 5). A vacuum updates the table's size in the
 *   catalog, which makes every connection plan again.
 *
 * A pass is a database-wide `VACUUM` (unchanged pages cost a visibility-map check), then an
 * `ANALYZE` of each table that changed enough ({@link PeriodicVacuum.analyzeChanged}), under a session
 * lock, so one process at a time runs it and the others skip their turn. It runs on a connection of
 * the pool, so on PGlite's one session it comes between transactions, never inside one. Passes of
 * one process never overlap: the next is scheduled when one ends.
 */
export class PeriodicVacuum {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;
  /** Table → its size when this process last analyzed it. */
  private readonly analyzedAt = new Map<string, number>();

  constructor(
    private readonly ds: DataSource,
    private readonly everyMs = VACUUM_EVERY_MS,
    private readonly onError: (e: unknown) => void = (e) =>
      console.error('vacuum failed:', e instanceof Error ? e.message : e),
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops the schedule and waits for a pass in flight, so the database can close after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass; false when another process held the lock and this one did nothing. */
  async pass(): Promise<boolean> {
    const session = this.ds.createQueryRunner();
    try {
      const rows = (await session.query('SELECT pg_try_advisory_lock($1) AS locked', [VACUUM_LOCK])) as {
        locked: boolean;
      }[];
      if (!rows[0]?.locked) return false;
      try {
        await session.query('VACUUM');
        await this.analyzeChanged(session);
        return true;
      } finally {
        await session.query('SELECT pg_advisory_unlock($1)', [VACUUM_LOCK]);
      }
    } finally {
      await session.release();
    }
  }

  /**
   * `ANALYZE`s every table that changed enough since its statistics were taken, the way autovacuum's
   * analyze does (more than 50 rows + 10 % of the table): a `VACUUM` alone updates a table's size but
   * never its column statistics, so a table that grew from empty keeps the planner's defaults. The
   * inbox then sorted every pending interrupt of a tenant for each page (431 ms for 15,000 rows)
   * instead of reading 51 entries of its index (docs/performance-log.md, round 10). "Changed" is
   * Postgres' count of modified rows where it keeps one (a server), and otherwise (PGlite keeps no
   * such count) a size that moved by that much since this process last analyzed the table.
   */
  private async analyzeChanged(session: QueryRunner): Promise<void> {
    const tables = (await session.query(
      `SELECT c.oid::regclass::text AS name, greatest(c.reltuples, 0)::float8 AS tuples,
              coalesce(s.n_mod_since_analyze, 0)::float8 AS modified
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
        WHERE c.relkind = 'r' AND n.nspname = current_schema()`,
    )) as { name: string; tuples: number; modified: number }[];
    for (const { name, tuples, modified } of tables) {
      const before = this.analyzedAt.get(name) ?? 0;
      const threshold = (n: number) => 50 + 0.1 * n;
      if (modified <= threshold(tuples) && Math.abs(tuples - before) <= threshold(before)) continue;
      await session.query(`ANALYZE ${name}`);
      this.analyzedAt.set(name, tuples);
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .catch(this.onError)
        .finally(() => {
          if (!this.stopped) this.schedule();
        });
    }, this.everyMs);
    this.timer.unref();
  }
}
