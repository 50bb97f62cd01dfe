import { mkdirSync } from 'node:fs';
import { lockDataDir } from './data-dir.lock';
import { PgliteConnection } from './pglite-connection';

/** A PGlite database in this process, for the embedded mode. */
export interface EmbeddedPostgres {
  /** A placeholder connection URL: node-postgres never dials it, `driverOptions` route it in-process. */
  readonly url: string;
  /**
   * node-postgres pool options (TypeORM's `extra`): one client, kept, over a {@link PgliteConnection},
   * so statements go straight to PGlite instead of through a socket.
   */
  readonly driverOptions: Readonly<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Starts PGlite (on disk at `dataDir`, or in memory when `dataDir` is undefined) and gives
 * node-postgres a connection to it in this process ({@link PgliteConnection}): no socket server,
 * no loopback writes, one PGlite call per statement. A transaction measured 614 µs through PGlite's
 * socket server and 393 µs in process (docs/performance-log.md, round 3).
 *
 * PGlite has one session: the pool has one client, and keeps it (no idle timeout). A folder on
 * disk is locked for this process first ({@link lockDataDir}): a second host started on the same
 * folder stops with a clear error before it opens anything.
 */
export async function startEmbeddedPostgres(dataDir: string | undefined): Promise<EmbeddedPostgres> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const lock = dataDir ? lockDataDir(dataDir) : undefined;
  const db = await PGlite.create(dataDir ? { dataDir } : {}).catch((error: unknown) => {
    lock?.release();
    throw error;
  });
  return {
    url: 'postgres://postgres@localhost:5432/postgres',
    driverOptions: { connection: new PgliteConnection(db), max: 1, idleTimeoutMillis: 0 },
    async close() {
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}
