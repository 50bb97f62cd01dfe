import type { DataSource, EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import type { CommandReply } from '@openwop/contracts';
import { decideOnce, pruneProcessedMessages, storedReply } from './processed-messages';
import { appendToOutbox } from './outbox';

describe('processed messages (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('processed_messages');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** A toy aggregate: a counter row per id that a decision increments, refusing past `max`. */
  const bump =
    (id: string, max = Number.POSITIVE_INFINITY) =>
    async (m: EntityManager): Promise<CommandReply> => {
      const [row] = await m.query<{ n: number }[]>(
        `INSERT INTO dedupe_probe (id, n) VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET n = dedupe_probe.n + 1 RETURNING n`,
        [id],
      );
      if (row!.n > max) return { ok: false, error: { code: 'conflict', message: `past ${max}` } };
      return { ok: true, data: row!.n };
    };
  const count = async (id: string) =>
    (await ds.query<{ n: number }[]>('SELECT n FROM dedupe_probe WHERE id = $1', [id]))[0]?.n ?? 0;

  it('decides once; a redelivery rolls back what it did and answers the stored reply', async () => {
    await ds.query('CREATE TABLE IF NOT EXISTS dedupe_probe (id text PRIMARY KEY, n int NOT NULL)');
    const first = await decideOnce(ds, 'c', 'm1', bump('a'));
    expect(first).toEqual({ ok: true, data: 1 });
    const again = await decideOnce(ds, 'c', 'm1', bump('a'));
    expect(again).toEqual({ ok: true, data: 1 });
    expect(await count('a')).toBe(1);
    expect(await storedReply(ds, 'c', 'm1')).toEqual({ ok: true, data: 1 });
    // Another consumer group decides the same id on its own.
    expect(await decideOnce(ds, 'other', 'm1', bump('a'))).toEqual({ ok: true, data: 2 });
  });

  it('a redelivery that would now be refused (the first decision moved the state) gets the first reply', async () => {
    expect(await decideOnce(ds, 'c', 'm2', bump('b', 1))).toEqual({ ok: true, data: 1 });
    expect(await decideOnce(ds, 'c', 'm2', bump('b', 1))).toEqual({ ok: true, data: 1 });
    expect(await count('b')).toBe(1);
  });

  it('a refusal writes nothing, not even the dedupe record: a later attempt decides afresh', async () => {
    await ds.query("INSERT INTO dedupe_probe (id, n) VALUES ('c', 5)");
    const refused = await decideOnce(ds, 'c', 'm3', bump('c', 5));
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await count('c')).toBe(5);
    expect(await storedReply(ds, 'c', 'm3')).toBeUndefined();
  });

  it('a failure is thrown (the bus retries) unless the command was decided before', async () => {
    const boom = async (): Promise<CommandReply> => {
      throw new Error('transient');
    };
    await expect(decideOnce(ds, 'c', 'm4', boom)).rejects.toThrow('transient');
    await decideOnce(ds, 'c', 'm4', bump('d'));
    expect(await decideOnce(ds, 'c', 'm4', boom)).toEqual({ ok: true, data: 1 });
  });

  it('concurrent duplicates (two instances during a rebalance) take effect once and answer alike', async () => {
    const replies = await Promise.all(Array.from({ length: 6 }, () => decideOnce(ds, 'c', 'm5', bump('e'))));
    expect(await count('e')).toBe(1);
    expect(new Set(replies.map((r) => JSON.stringify(r))).size).toBe(1);
  });

  it('prunes only rows older than the retention window', async () => {
    await ds.query(
      `INSERT INTO processed_messages (consumer, message_id, processed_at) VALUES
       ('c', 'old', now() - interval '8 days'), ('c', 'recent', now() - interval '1 hour')`,
    );
    const pruned = await pruneProcessedMessages(ds, 7 * 24 * 3_600_000);
    expect(pruned).toBe(1);
    const left = await ds.query<{ message_id: string }[]>(
      "SELECT message_id FROM processed_messages WHERE message_id IN ('old', 'recent')",
    );
    expect(left.map((r) => r.message_id)).toEqual(['recent']);
  });
  describe('with outbox appends', () => {
    const outboxRows = async (key: string) =>
      (await ds.query<{ n: number }[]>('SELECT count(*)::int AS n FROM outbox WHERE key = $1', [key]))[0]!.n;
    /** Appends one message keyed `id`, notes whether its row is visible to the decision yet, then bumps. */
    const appendThenBump = (id: string, seen: number[], max?: number) => async (m: EntityManager) => {
      await appendToOutbox(m, [{ topic: 'probe', key: id, value: { id } }]);
      seen.push(
        (await m.query<{ n: number }[]>('SELECT count(*)::int AS n FROM outbox WHERE key = $1', [id]))[0]!.n,
      );
      return bump(id, max)(m);
    };

    it('holds what the decision appends and writes it with the record', async () => {
      const seen: number[] = [];
      expect(await decideOnce(ds, 'c', 'm7', appendThenBump('g', seen))).toEqual({ ok: true, data: 1 });
      expect(seen).toEqual([0]); // not written while deciding: it travels with the record
      expect(await outboxRows('g')).toBe(1);
      expect(await storedReply(ds, 'c', 'm7')).toEqual({ ok: true, data: 1 });
    });

    it('a redelivery and concurrent duplicates leave no outbox row of their own', async () => {
      const seen: number[] = [];
      await decideOnce(ds, 'c', 'm8', appendThenBump('h', seen));
      expect(await decideOnce(ds, 'c', 'm8', appendThenBump('h', seen))).toEqual({ ok: true, data: 1 });
      const replies = await Promise.all(
        Array.from({ length: 5 }, () => decideOnce(ds, 'c', 'm9', appendThenBump('i', seen))),
      );
      expect(new Set(replies.map((r) => JSON.stringify(r))).size).toBe(1);
      expect(await outboxRows('h')).toBe(1);
      expect(await outboxRows('i')).toBe(1);
      expect(await count('i')).toBe(1);
    });

    it('a refusal or a failure after an append writes no outbox row', async () => {
      await ds.query("INSERT INTO dedupe_probe (id, n) VALUES ('j', 3)");
      const refused = await decideOnce(ds, 'c', 'm10', appendThenBump('j', [], 3));
      expect(refused).toMatchObject({ ok: false });
      const failing = async (m: EntityManager): Promise<CommandReply> => {
        await appendToOutbox(m, [{ topic: 'probe', key: 'j', value: {} }]);
        throw new Error('transient');
      };
      await expect(decideOnce(ds, 'c', 'm11', failing)).rejects.toThrow('transient');
      expect(await outboxRows('j')).toBe(0);
      // Appends outside a decision are written at once, as before.
      await ds.transaction(async (m) => {
        await appendToOutbox(m, [{ topic: 'probe', key: 'k', value: {} }]);
        expect(
          (await m.query<{ n: number }[]>("SELECT count(*)::int AS n FROM outbox WHERE key = 'k'"))[0]!.n,
        ).toBe(1);
      });
    });
  });
});
