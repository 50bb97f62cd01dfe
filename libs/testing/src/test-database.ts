import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** A database created for one test file and dropped after it. */
export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

const SERVER = () => process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Creates a fresh database whose name contains "test" (the guard every destructive helper checks).
 */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const name = `test_${prefix.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = new URL(SERVER());
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => dropTestDatabase(name) };
}

/** Drops a test database; refuses any database without "test" in its name. */
export async function dropTestDatabase(name: string): Promise<void> {
  if (!name.includes('test')) throw new Error(`refusing to drop ${name}: not a test database`);
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: SERVER() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
