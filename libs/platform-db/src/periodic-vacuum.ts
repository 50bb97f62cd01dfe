import type { DataSource } from 'typeorm';

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
  const [row] = await ds.query<{ autovacuum: string }[]>(`SELECT current_setting('autovacuum') AS autovacuum`);
  return row?.autovacuum !== 'on';
}

/**
 * Vacuums the database every `everyMs`, for a database that nothing else vacuums. Without it:
 * - the space of every deleted or updated row stays in the tables, and every scan reads it again.
 *   The outbox, a row per message deleted once published, grew to 16 MB in 3,000 HITL cycles
 *   while holding no row;
 * - the statistics never change, so the plans each connection cached for its prepared statements
 *   while the tables were empty (sequential scans) are never made again, and each statement reads
 *   the whole table (docs/performance.md, round 5). A vacuum updates the table's size in the
 *   catalog, which makes every connection plan again.
 *
 * A pass is a database-wide `VACUUM` (unchanged pages cost a visibility-map check) under a session
 * lock, so one process at a time runs it and the others skip their turn. It runs on a connection of
 * the pool, so on PGlite's one session it comes between transactions, never inside one. Passes of
 * one process never overlap: the next is scheduled when one ends.
 */
export class PeriodicVacuum {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;

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
        return true;
      } finally {
        await session.query('SELECT pg_advisory_unlock($1)', [VACUUM_LOCK]);
      }
    } finally {
      await session.release();
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
