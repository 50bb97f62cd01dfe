import type { DataSource, EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import { holdWrite } from './held-writes';
import { ReadAhead, takeReadAhead, type ReadAheadPart } from './read-ahead';
import { transaction } from './transaction';

describe('read-ahead: a decision reads each row once (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  const STEP_B: ReadAheadPart = {
    table: 'ra_b',
    reads: ['ra_b'],
    select: (runId) => `(SELECT n FROM ra_b WHERE run_id = ${runId} FOR UPDATE)`,
  };

  beforeAll(async () => {
    db = await createTestDatabase('read_ahead');
    ds = await openDatabase({ url: db.url });
    await ds.query('CREATE TABLE ra_a (run_id text PRIMARY KEY, n int NOT NULL)');
    await ds.query('CREATE TABLE ra_b (run_id text PRIMARY KEY, n int NOT NULL)');
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query('DELETE FROM ra_a');
    await ds.query('DELETE FROM ra_b');
    await ds.query(`INSERT INTO ra_a VALUES ('r1', 1)`);
    await ds.query(`INSERT INTO ra_b VALUES ('r1', 10)`);
  });

  /** The first step: its own row, and what it is asked to read ahead for run `r1`. */
  async function firstStep(m: EntityManager): Promise<number> {
    const more = ReadAhead.columns(m, ['ra_b'], '$1');
    const [row] = await m.query<({ n: number } & Record<string, unknown>)[]>(
      `SELECT n${more.sql} FROM ra_a WHERE run_id = $1 FOR UPDATE`,
      ['r1'],
    );
    more.keep(row, 'r1');
    return row!.n;
  }

  /** A later step: the row read ahead, or its own read (counted). */
  async function laterStep(m: EntityManager, reads: string[]): Promise<number | null> {
    const ahead = takeReadAhead<number>(m, 'ra_b', 'r1');
    if (ahead) return ahead.value;
    reads.push('ra_b');
    const [row] = await m.query<{ n: number }[]>(`SELECT n FROM ra_b WHERE run_id = $1 FOR UPDATE`, ['r1']);
    return row?.n ?? null;
  }

  it('a later step takes the row the first statement read, once; nothing is read ahead unregistered', async () => {
    const reads: string[] = [];
    await transaction(ds, async (m) => {
      await firstStep(m);
      expect(await laterStep(m, reads)).toBe(10);
    });
    expect(reads).toEqual(['ra_b']); // no part registered: the later step read it itself
    const unregister = ReadAhead.register(ds, STEP_B);
    try {
      reads.length = 0;
      await transaction(ds, async (m) => {
        expect(await firstStep(m)).toBe(1);
        expect(await laterStep(m, reads)).toBe(10); // from the first statement
        expect(await laterStep(m, reads)).toBe(10); // taken once: read again
      });
      expect(reads).toEqual(['ra_b']);
    } finally {
      unregister();
    }
  });

  it('forgets a row once a statement or a held write of the transaction touches its table', async () => {
    const unregister = ReadAhead.register(ds, STEP_B);
    try {
      const reads: string[] = [];
      await transaction(ds, async (m) => {
        await firstStep(m);
        await m.query(`UPDATE ra_b SET n = 11 WHERE run_id = 'r1'`);
        expect(await laterStep(m, reads)).toBe(11);
      });
      await transaction(ds, async (m) => {
        await firstStep(m);
        await holdWrite(m, {
          sql: `UPDATE ra_b SET n = 12 WHERE run_id = 'r1'`,
          params: [],
          tables: ['ra_b'],
        });
        expect(await laterStep(m, reads)).toBe(12); // its read sends the held write first
      });
      expect(reads).toEqual(['ra_b', 'ra_b']);
    } finally {
      unregister();
    }
  });

  it('reads nothing ahead outside a transaction that reports its statements', async () => {
    const unregister = ReadAhead.register(ds, STEP_B);
    try {
      const reads: string[] = [];
      await ds.transaction(async (m) => {
        await firstStep(m);
        expect(await laterStep(m, reads)).toBe(10);
      });
      expect(reads).toEqual(['ra_b']);
    } finally {
      unregister();
    }
  });

  it('keeps a part while any instance that registered it still does', () => {
    const first = ReadAhead.register(ds, STEP_B);
    const second = ReadAhead.register(ds, STEP_B);
    expect(() => ReadAhead.register(ds, { ...STEP_B })).toThrow(/another read-ahead of ra_b/);
    first();
    first(); // a second call changes nothing
    expect(() => ReadAhead.register(ds, { ...STEP_B })).toThrow(/another read-ahead of ra_b/);
    second();
    const third = ReadAhead.register(ds, { ...STEP_B });
    third();
  });
});
