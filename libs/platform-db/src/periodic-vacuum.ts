import type { EntityManager } from 'typeorm';

/** How often the embedded host vacuums PGlite (see {@link PeriodicVacuum}). */
export const EMBEDDED_VACUUM_MS = 10_000;

/**
 * Vacuums the database every `everyMs`. PGlite is Postgres in single-user mode, which has no
 * autovacuum: without this, the space of every deleted or updated row stays in the tables and every
 * scan reads it again. The outbox alone, a row per message deleted once published, grew to 16 MB
 * in 3,000 HITL cycles while holding no row (docs/performance.md, round 5). A pass goes through the
 * pool like any statement, so on PGlite's one session it runs between transactions, never in one.
 * Passes never overlap: the next is scheduled when one ends.
 */
export class PeriodicVacuum {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = true;

  constructor(
    private readonly db: { query: EntityManager['query'] },
    private readonly everyMs = EMBEDDED_VACUUM_MS,
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

  /** One pass: `VACUUM` of the whole database (tables that did not change cost a visibility-map check). */
  async pass(): Promise<void> {
    await this.db.query('VACUUM');
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
