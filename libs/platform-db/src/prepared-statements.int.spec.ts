import type { DataSource, QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { createDataSource, openDatabase } from './data-source';

describe('prepared statements (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase('prepared');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** The prepared statements of `on`'s connection whose text starts with `prefix`. */
  const preparedLike = async (on: QueryRunner, prefix: string) =>
    (await on.query('SELECT name FROM pg_prepared_statements WHERE starts_with(statement, $1)', [
      prefix,
    ])) as {
      name: string;
    }[];
  /** Runs `work` on one connection of `source`. */
  const onOneConnection = async <T>(source: DataSource, work: (on: QueryRunner) => Promise<T>) => {
    const runner = source.createQueryRunner();
    try {
      return await work(runner);
    } finally {
      await runner.release();
    }
  };

  it('prepares a parametrized text once per connection and reuses it', async () => {
    await onOneConnection(ds, async (on) => {
      for (const n of [1, 2, 3]) {
        expect(await on.query('SELECT $1::int + 40 AS answer', [n])).toEqual([{ answer: n + 40 }]);
      }
      const prepared = await preparedLike(on, 'SELECT $1::int + 40');
      expect(prepared).toHaveLength(1);
      expect(prepared[0]!.name).toMatch(/^openwop_\d+$/);
    });
  });

  it('leaves statements without parameters unnamed', async () => {
    await onOneConnection(ds, async (on) => {
      await on.query('SELECT 41 + 1 AS unprepared');
      expect(await preparedLike(on, 'SELECT 41 + 1')).toEqual([]);
    });
  });

  it('leaves statements with more than 64 parameters unnamed (the texts of large multi-row batches)', async () => {
    const sum = (n: number) =>
      `SELECT ${Array.from({ length: n }, (_, i) => `$${i + 1}::int`).join(' + ')} AS total`;
    const ones = (n: number) => Array.from({ length: n }, () => 1);
    await onOneConnection(ds, async (on) => {
      expect(await on.query(sum(64), ones(64))).toEqual([{ total: 64 }]);
      expect(await on.query(sum(65), ones(65))).toEqual([{ total: 65 }]);
      expect(await preparedLike(on, sum(64))).toHaveLength(1);
      expect(await preparedLike(on, sum(65))).toEqual([]);
    });
  });

  /** Sends a parametrized text on one connection of `source`, expects it unnamed, then closes `source`. */
  const expectNothingPrepared = async (source: DataSource, text: string) => {
    try {
      await onOneConnection(source, async (on) => {
        await on.query(`${text} AS n`, [1]);
        expect(await preparedLike(on, text)).toEqual([]);
      });
    } finally {
      await source.destroy();
    }
  };

  it('prepares nothing in a data source that was not opened through openDatabase (migrations run unnamed)', async () => {
    await expectNothingPrepared(await createDataSource({ url: db.url }).initialize(), 'SELECT $1::int + 50');
  });

  it('prepares nothing when told not to (a pooler that does not keep prepared statements)', async () => {
    await expectNothingPrepared(
      await openDatabase({ url: db.url, prepareStatements: false }),
      'SELECT $1::int + 60',
    );
  });

  it('a failing prepared statement fails alone: the next use of its text still works', async () => {
    await onOneConnection(ds, async (on) => {
      await expect(on.query('SELECT 1 / $1::int AS q', [0])).rejects.toThrow(/division by zero/);
      expect(await on.query('SELECT 1 / $1::int AS q', [1])).toEqual([{ q: 1 }]);
      expect(await preparedLike(on, 'SELECT 1 / $1::int')).toHaveLength(1);
    });
  });

  it("answers a prepared statement as node-postgres answers its config object: rows, count, Postgres's error and a stack that leads back to the caller", async () => {
    await onOneConnection(ds, async (on) => {
      await on.query('CREATE TEMP TABLE prepared_probe (n int PRIMARY KEY, t text)');
      const inserted = await on.query(
        'INSERT INTO prepared_probe (n, t) VALUES ($1, $2), ($3, $4) RETURNING n, t',
        [1, 'a', 2, null],
      );
      expect(inserted).toEqual([
        { n: 1, t: 'a' },
        { n: 2, t: null },
      ]);
      // UPDATE answers [rows, rowCount] through TypeORM, from the result's command and count.
      expect(await on.query('UPDATE prepared_probe SET t = $1 WHERE n > $2', ['b', 0])).toEqual([[], 2]);
      const duplicate = await on
        .query('INSERT INTO prepared_probe (n) VALUES ($1)', [1])
        .catch((e: unknown) => e);
      const cause = (duplicate as { driverError?: { code?: string; stack?: string } }).driverError;
      expect(cause?.code).toBe('23505');
      expect(cause?.stack).toContain('prepared-statements');
      expect(await preparedLike(on, 'INSERT INTO prepared_probe (n, t)')).toHaveLength(1);
    });
  });
});
