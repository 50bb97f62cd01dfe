import type { DataSource, EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import { holdWrite, renumbered } from './held-writes';
import { appendToOutbox, holdAppends, writeHeldAppends } from './outbox';
import { transaction } from './transaction';

describe('held writes: a decision’s writes as one statement (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('held_writes');
    ds = await openDatabase({ url: db.url });
    await ds.query('CREATE TABLE hw_a (id text PRIMARY KEY, n int NOT NULL DEFAULT 0)');
    await ds.query('CREATE TABLE hw_b (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query('DELETE FROM hw_a');
    await ds.query('DELETE FROM hw_b');
    await ds.query('DELETE FROM outbox');
  });

  /** Counts the statements `work` sends through its manager (the held writes' own included). */
  async function counted<T>(work: (m: EntityManager) => Promise<T>): Promise<{ result: T; sent: string[] }> {
    const sent: string[] = [];
    const result = await transaction(ds, async (m) => {
      const runner = m.queryRunner!;
      const query = runner.query.bind(runner);
      runner.query = ((sql: string, params?: unknown[]) => {
        if (sql !== 'COMMIT') sent.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
        return query(sql, params);
      }) as typeof runner.query;
      return work(m);
    });
    return { result, sent };
  }

  const rowsOf = async (table: string) =>
    (await ds.query<{ id: string }[]>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id);

  it('sends held writes of different tables in one statement before COMMIT', async () => {
    const { sent } = await counted(async (m) => {
      await holdWrite(m, { sql: 'INSERT INTO hw_a (id) VALUES ($1)', params: ['a1'], tables: ['hw_a'] });
      await holdWrite(m, { sql: 'INSERT INTO hw_b (id) VALUES ($1)', params: ['b1'], tables: ['hw_b'] });
    });
    expect(sent).toEqual(['WITH hw0 AS']);
    expect(await rowsOf('hw_a')).toEqual(['a1']);
    expect(await rowsOf('hw_b')).toEqual(['b1']);
  });

  it('sends them first when a statement names a held table, so a read sees its own transaction’s writes', async () => {
    const { result } = await counted(async (m) => {
      await holdWrite(m, {
        sql: 'INSERT INTO hw_a (id, n) VALUES ($1, 7)',
        params: ['a1'],
        tables: ['hw_a'],
      });
      return m.query<{ n: number }[]>('SELECT n FROM hw_a WHERE id = $1', ['a1']);
    });
    expect(result).toEqual([{ n: 7 }]);
  });

  it('does not send them for a statement that names only other tables (hw_a is not in hw_a_x)', async () => {
    await ds.query('CREATE TABLE IF NOT EXISTS hw_a_x (id text)');
    const { sent } = await counted(async (m) => {
      await holdWrite(m, { sql: 'INSERT INTO hw_a (id) VALUES ($1)', params: ['a1'], tables: ['hw_a'] });
      await m.query('SELECT count(*) FROM hw_a_x');
    });
    expect(sent).toEqual(['SELECT count(*) FROM', 'WITH hw0 AS']);
  });

  it('never puts two writes of one table in one statement (the second would not see the first)', async () => {
    await counted(async (m) => {
      await holdWrite(m, { sql: 'INSERT INTO hw_a (id) VALUES ($1)', params: ['a1'], tables: ['hw_a'] });
      await holdWrite(m, {
        sql: 'UPDATE hw_a SET n = n + 1 WHERE id = $1',
        params: ['a1'],
        tables: ['hw_a'],
      });
    });
    expect(await ds.query('SELECT id, n FROM hw_a')).toEqual([{ id: 'a1', n: 1 }]);
  });

  it('rides in the decision’s closing statement, numbered after the outbox rows’ parameters', async () => {
    const { result, sent } = await counted(async (m) => {
      holdAppends(m);
      await holdWrite(m, {
        sql: 'INSERT INTO hw_a (id, n) VALUES ($1, $2)',
        params: ['a1', 3],
        tables: ['hw_a'],
      });
      await appendToOutbox(m, [{ topic: 't.held', key: 'k', value: { v: 1 } }]);
      return writeHeldAppends(m, { consumer: 'held-writes-test', messageId: 'm1', reply: { ok: true } });
    });
    expect(result).toBe(true);
    expect(sent).toHaveLength(1);
    expect(await ds.query('SELECT id, n FROM hw_a')).toEqual([{ id: 'a1', n: 3 }]);
    expect(await ds.query(`SELECT key FROM outbox WHERE topic = 't.held'`)).toEqual([{ key: 'k' }]);
  });

  it('rolls back with the transaction: nothing held is written when the work fails', async () => {
    await expect(
      transaction(ds, async (m) => {
        await holdWrite(m, { sql: 'INSERT INTO hw_a (id) VALUES ($1)', params: ['a1'], tables: ['hw_a'] });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await rowsOf('hw_a')).toEqual([]);
  });

  it('fails the transaction when a held write fails, and leaves nothing', async () => {
    await ds.query(`INSERT INTO hw_a (id) VALUES ('taken')`);
    await expect(
      transaction(ds, async (m) => {
        await holdWrite(m, { sql: 'INSERT INTO hw_b (id) VALUES ($1)', params: ['b1'], tables: ['hw_b'] });
        await holdWrite(m, { sql: 'INSERT INTO hw_a (id) VALUES ($1)', params: ['taken'], tables: ['hw_a'] });
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await rowsOf('hw_b')).toEqual([]);
  });

  it('sends at once outside a transaction that holds writes', async () => {
    await holdWrite(ds.manager, {
      sql: 'INSERT INTO hw_a (id) VALUES ($1)',
      params: ['now'],
      tables: ['hw_a'],
    });
    expect(await rowsOf('hw_a')).toEqual(['now']);
  });

  it('renumbers parameters past an offset', () => {
    expect(renumbered('UPDATE t SET a = $1, b = $12 WHERE c = $2', 5)).toBe(
      'UPDATE t SET a = $6, b = $17 WHERE c = $7',
    );
  });
});
