import { mkdirSync } from 'node:fs';

/** A PGlite database served over the Postgres wire protocol on 127.0.0.1, for the embedded mode. */
export interface EmbeddedPostgres {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts PGlite (on disk at `dataDir`, or in memory when `dataDir` is undefined) behind a socket
 * server, so TypeORM and `pg` talk to it like any Postgres. The socket server runs one query at a
 * time, so the process should use a small pool.
 */
export async function startEmbeddedPostgres(dataDir: string | undefined): Promise<EmbeddedPostgres> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir ? { dataDir } : {});
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const conn = server.getServerConn();
  const port = conn.split(':').pop();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
