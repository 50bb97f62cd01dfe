import { readHostConfig, startPlatform, type Platform } from './index';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';

/**
 * `DATABASE_PREPARED_STATEMENTS` is a supported setting (README, docs/capacity.md, ADR 0013): a
 * host behind a pooler in transaction mode that does not keep prepared statements (PgBouncer before
 * 1.21) sets it `off`. From the environment to the platform's connections: `on` (the default) names
 * a parametrized statement on its connection, `off` leaves it unnamed.
 */
describe('DATABASE_PREPARED_STATEMENTS (real Postgres)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('prepared_setting');
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** The names of the prepared statements of `text` on the connection that just ran it, on a platform started with `env`. */
  const preparedOn = async (env: Record<string, string>, text: string): Promise<string[]> => {
    const platform: Platform = await startPlatform(
      readHostConfig('embedded', { DATABASE_URL: db.url, OPENWOP_DATA_DIR: 'memory', ...env }),
    );
    try {
      const runner = platform.dataSource.createQueryRunner();
      try {
        await runner.query(`${text} AS n`, [1]);
        const rows = (await runner.query(
          'SELECT name FROM pg_prepared_statements WHERE starts_with(statement, $1)',
          [text],
        )) as { name: string }[];
        return rows.map((r) => r.name);
      } finally {
        await runner.release();
      }
    } finally {
      await platform.close();
    }
  };

  it('names statements by default and when on', async () => {
    expect(await preparedOn({}, 'SELECT $1::int + 70')).toHaveLength(1);
    expect(await preparedOn({ DATABASE_PREPARED_STATEMENTS: 'on' }, 'SELECT $1::int + 71')).toHaveLength(1);
  });

  it('leaves every statement unnamed when off', async () => {
    expect(await preparedOn({ DATABASE_PREPARED_STATEMENTS: 'off' }, 'SELECT $1::int + 72')).toEqual([]);
  });
});
