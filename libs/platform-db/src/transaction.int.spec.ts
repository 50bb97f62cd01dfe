import type { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import { isPipelined, StatementBatch, transaction } from './transaction';

describe('transaction on pipelined connections (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('pipelined_tx');
    ds = await openDatabase({ url: db.url });
    await ds.query('CREATE TABLE tx_probe (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const ids = async (): Promise<string[]> =>
    (await ds.query<{ id: string }[]>('SELECT id FROM tx_probe ORDER BY id')).map((r) => r.id);
  const insert = (m: { query: DataSource['query'] }, id: string) =>
    m.query('INSERT INTO tx_probe (id) VALUES ($1)', [id]);

  beforeEach(async () => {
    await ds.query('DELETE FROM tx_probe');
  });

  it('is on for a data source that does not own its database alone', () => {
    expect(isPipelined(ds)).toBe(true);
  });

  it('runs the first statement, sent with BEGIN, inside the transaction: a failure undoes it', async () => {
    await expect(
      transaction(ds, async (m) => {
        await insert(m, 'first');
        throw new Error('decided against it');
      }),
    ).rejects.toThrow('decided against it');
    expect(await ids()).toEqual([]);
  });

  it('commits what the work wrote and returns its result', async () => {
    const result = await transaction(ds, async (m) => {
      await insert(m, 'a');
      await insert(m, 'b');
      return 'done';
    });
    expect(result).toBe('done');
    expect(await ids()).toEqual(['a', 'b']);
  });

  it('gives a nested manager.transaction a savepoint, so it cannot commit the outer one early', async () => {
    await expect(
      transaction(ds, async (m) => {
        await insert(m, 'outer');
        await m.transaction(async (inner) => {
          await insert(inner, 'inner');
        });
        throw new Error('outer fails after the inner one finished');
      }),
    ).rejects.toThrow('outer fails');
    expect(await ids()).toEqual([]);
  });

  it('raises the first failure of statements sent without waiting, not the aborted-transaction error after it', async () => {
    await ds.query("INSERT INTO tx_probe (id) VALUES ('taken')");
    const failure = transaction(ds, async (m) => {
      const writes = StatementBatch.for(m);
      try {
        await writes.add(() => insert(m, 'fresh'));
        await writes.add(() => insert(m, 'taken')); // duplicate key: aborts the transaction
        await m.query('SELECT 1'); // fails with "current transaction is aborted"
      } catch (error) {
        return writes.rethrow(error);
      }
      await writes.settle();
    });
    await expect(failure).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual(['taken']);
  });

  it('keeps statements sent without waiting in issue order', async () => {
    await transaction(ds, async (m) => {
      const writes = StatementBatch.for(m);
      await writes.add(() => insert(m, 'x'));
      await writes.add(() => m.query("UPDATE tx_probe SET id = 'y' WHERE id = 'x'"));
      await writes.add(() => m.query("UPDATE tx_probe SET id = 'z' WHERE id = 'y'"));
      await writes.settle();
    });
    expect(await ids()).toEqual(['z']);
  });

  it('sends the statements of a batch without waiting on a pipelined connection', async () => {
    await transaction(ds, async (m) => {
      const writes = StatementBatch.for(m);
      let done = false;
      await writes.add(() => m.query('SELECT pg_sleep(0.05)').then(() => (done = true)));
      expect(done).toBe(false);
      await writes.settle();
      expect(done).toBe(true);
    });
  });
});

describe('StatementBatch on a connection that is not pipelined (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('unpipelined_tx');
    ds = await openDatabase({ url: db.url, exclusive: true });
    await ds.query('CREATE TABLE tx_probe (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('waits for each statement, so node-postgres never queues one behind another', async () => {
    expect(isPipelined(ds)).toBe(false);
    await transaction(ds, async (m) => {
      const writes = StatementBatch.for(m);
      let done = false;
      await writes.add(() => m.query('SELECT pg_sleep(0.05)').then(() => (done = true)));
      expect(done).toBe(true);
      await writes.add(() => m.query("INSERT INTO tx_probe (id) VALUES ('a')"));
      await writes.settle();
    });
    expect(await ds.query('SELECT id FROM tx_probe')).toEqual([{ id: 'a' }]);
  });

  it('raises the failure of a statement at once', async () => {
    await ds.query("INSERT INTO tx_probe (id) VALUES ('taken') ON CONFLICT DO NOTHING");
    const writes = StatementBatch.for(ds.manager);
    await expect(
      writes.add(() => ds.query("INSERT INTO tx_probe (id) VALUES ('taken')")),
    ).rejects.toMatchObject({ code: '23505' });
  });
});
