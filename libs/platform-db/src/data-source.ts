import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from './migrations';
import { preparingClient } from './prepared-statements';
import { READ_MODEL_ENTITIES } from './read-models';

export interface DatabaseOptions {
  readonly url: string;
  /** Pool size per process (default 10). */
  readonly poolSize?: number;
  readonly applicationName?: string;
  /**
   * The process owns the database alone (the embedded mode): migrations run without the
   * cross-instance advisory lock, which would need a second connection.
   */
  readonly exclusive?: boolean;
  /**
   * Parametrized statements become named prepared statements once `openDatabase` has migrated
   * (default true; see `preparingClient`).
   */
  readonly prepareStatements?: boolean;
  /** Extra node-postgres pool options, applied last (the embedded PGlite's in-process connection). */
  readonly driverOptions?: Readonly<Record<string, unknown>>;
}

/** Data sources whose parametrized statements are prepared (see {@link preparingClient}). */
const preparing = new WeakSet<DataSource>();

/** A TypeORM data source for `url` with the project's entities and migrations; not yet initialized. */
export function createDataSource(options: DatabaseOptions): DataSource {
  const ds: DataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    entities: READ_MODEL_ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    logging: false,
    uuidExtension: 'pgcrypto',
    applicationName: options.applicationName ?? 'openwop',
    // Pipeline mode (node-postgres): a connection sends a statement without waiting for the answer to
    // the one before, which `transaction` and `StatementBatch` use to save round trips. Not for the
    // embedded PGlite (`exclusive`), which runs one statement at a time: there it measured no gain.
    // Statements are prepared once per connection once `openDatabase` has migrated.
    extra: {
      max: options.poolSize ?? 10,
      pipeline: !options.exclusive,
      Client: preparingClient(() => preparing.has(ds)),
      ...options.driverOptions,
    },
  });
  return ds;
}

/** Arbitrary constant for the advisory lock that serialises migration runs across instances. */
const MIGRATION_LOCK = 7_420_001;

/**
 * Initializes the data source and applies pending migrations under a Postgres advisory lock,
 * so several instances starting at once migrate exactly once.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  const ds = createDataSource(options);
  await ds.initialize();
  if (options.exclusive) {
    await ds.runMigrations({ transaction: 'each' });
    if (options.prepareStatements !== false) preparing.add(ds);
    return ds;
  }
  const runner = ds.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await ds.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
  if (options.prepareStatements !== false) preparing.add(ds);
  return ds;
}

/** Connection to the server's maintenance database, for creating and dropping databases. */
export function adminUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** Creates database `name` on the server of `url` when it does not exist. */
export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const client = new Client({ connectionString: adminUrl(url) });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      // Several instances may start at once: losing the race to create it is fine.
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((e: unknown) => {
        const code = (e as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw e;
      });
    }
  } finally {
    await client.end();
  }
}
