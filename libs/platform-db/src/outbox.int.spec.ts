import type { DataSource } from 'typeorm';
import { MAX_BUS_MESSAGE_BYTES, MessageTooLargeError } from '@openwop/contracts';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import { appendToOutbox, holdAppends, OutboxRelay, writeHeldAppends } from './outbox';
import { transaction } from './transaction';

describe('outbox (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('outbox');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it("a decision's check for older rows of its keys reads the key index, not the heap", async () => {
    // Rows that were published and deleted leave dead tuples until a vacuum: the heap the check must not read.
    await ds.query(
      `INSERT INTO outbox (topic, key, value) SELECT 't', 'run-' || (i % 50), jsonb_build_object('i', i) FROM generate_series(1, 5000) i`,
    );
    await ds.query('DELETE FROM outbox');
    const scans = await transaction(ds, async (m) => {
      // Scans of the heap and of the key index: the session's counts not yet flushed to the
      // statistics (the DELETE's scan among them), then the append's own. The primary key could
      // serve `id < …` too, but walking it reads every dead entry below the new row.
      const counts = async () =>
        (
          await m.query<{ heap: number; key: number }[]>(
            `SELECT pg_stat_get_xact_numscans('outbox'::regclass)::int AS heap,
               pg_stat_get_xact_numscans('outbox_key_id'::regclass)::int AS key`,
          )
        )[0]!;
      await m.query('SET LOCAL enable_seqscan = off');
      const before = await counts();
      await appendToOutbox(m, [{ topic: 't', key: 'run-7', value: { n: 1 } }]);
      const after = await counts();
      return { heap: after.heap - before.heap, key: after.key - before.key };
    });
    expect(scans).toEqual({ heap: 0, key: 1 });
  });

  it('the sweep publishes a row its writer left unpublished once it is old enough', async () => {
    await ds.query('DELETE FROM outbox');
    await ds.query(
      `INSERT INTO outbox (topic, key, value, created_at) VALUES ('t', 'left', '{"n": 1}'::jsonb, now() - interval '5 seconds')`,
    );
    const published: unknown[] = [];
    const relay = new OutboxRelay(
      ds,
      async (_topic, messages) => {
        published.push(...messages.map((m) => m.value));
      },
      { sweepMs: 50 },
    );
    relay.start();
    try {
      await waitFor(() => published.length > 0, { what: 'the sweep to publish the left row' });
      await waitFor(async () => (await ds.query<unknown[]>('SELECT 1 FROM outbox')).length === 0, {
        what: 'the published row to be deleted',
      });
    } finally {
      await relay.stop();
    }
    expect(published).toEqual([{ n: 1 }]);
  });

  it("the relay publishes rows that alternate topics as one publish per topic, each in its rows' order", async () => {
    // A timer batch appends a command and an audit fact per row: consecutive runs of one topic
    // would be one produce round trip per row.
    await ds.query('DELETE FROM outbox');
    await ds.query(
      `INSERT INTO outbox (topic, key, value, created_at)
       SELECT CASE WHEN i % 2 = 0 THEN 'commands' ELSE 'facts' END, 'run-' || (i % 7), jsonb_build_object('i', i),
              now() - interval '5 seconds'
       FROM generate_series(1, 400) i ORDER BY i`,
    );
    const calls: { topic: string; values: number[] }[] = [];
    const relay = new OutboxRelay(ds, async (topic, messages) => {
      calls.push({ topic, values: messages.map((m) => (m.value as { i: number }).i) });
    });
    await relay.kick();
    const evens = Array.from({ length: 200 }, (_, k) => 2 * (k + 1));
    expect(calls.map((c) => c.topic).sort()).toEqual(['commands', 'facts']);
    expect(calls.find((c) => c.topic === 'commands')!.values).toEqual(evens);
    expect(calls.find((c) => c.topic === 'facts')!.values).toEqual(evens.map((n) => n - 1));
    expect(await ds.query('SELECT 1 FROM outbox')).toEqual([]);
  });

  it('a decision of 12,000 messages (72,000 parameters) is written whole, in order, with its dedupe record', async () => {
    await ds.query('DELETE FROM outbox');
    const messages = Array.from({ length: 12_000 }, (_, i) => ({
      topic: 'big',
      key: 'run-big',
      value: { i },
    }));
    const record = { consumer: 'it-big', messageId: 'm-big', reply: { ok: true } };
    const decide = () =>
      transaction(ds, async (m) => {
        holdAppends(m);
        await appendToOutbox(m, messages);
        if (!(await writeHeldAppends(m, record))) throw new Error('taken');
      });
    await decide();
    const rows = await ds.query<{ i: number }[]>(
      `SELECT (value->>'i')::int AS i FROM outbox WHERE topic = 'big' ORDER BY id`,
    );
    expect(rows.map((r) => r.i)).toEqual(messages.map((m) => m.value.i));
    const [recorded] = await ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM processed_messages WHERE consumer = 'it-big' AND message_id = 'm-big'`,
    );
    expect(recorded!.n).toBe(1);
    // The same decision again finds its record taken: it rolls back, and no row of it stays.
    await expect(decide()).rejects.toThrow('taken');
    const [count] = await ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbox WHERE topic = 'big'`,
    );
    expect(count!.n).toBe(12_000);
  });

  it('refuses, inside the decision, a row the broker would refuse for good; the decision writes nothing', async () => {
    await ds.query('DELETE FROM outbox');
    const record = { consumer: 'it-huge', messageId: 'm-huge', reply: { ok: true } };
    const decide = transaction(ds, async (m) => {
      holdAppends(m);
      await appendToOutbox(m, [
        { topic: 'run-events', key: 'run-huge', value: { small: true } },
        { topic: 'run-events', key: 'run-huge', value: { output: 'z'.repeat(MAX_BUS_MESSAGE_BYTES) } },
      ]);
      await writeHeldAppends(m, record);
    });
    await expect(decide).rejects.toThrow(MessageTooLargeError);
    const [rows] = await ds.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM outbox`);
    const [records] = await ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM processed_messages WHERE consumer = 'it-huge'`,
    );
    expect({ outbox: rows!.n, records: records!.n }).toEqual({ outbox: 0, records: 0 });
  });
  describe('the delete of a published row (ADR 0039)', () => {
    const keys = async () =>
      (await ds.query<{ key: string }[]>(`SELECT key FROM outbox WHERE topic = 'ride' ORDER BY id`)).map(
        (r) => r.key,
      );
    const decide = (relay: OutboxRelay, key: string) =>
      relay.transaction(async (m) => {
        holdAppends(m);
        await writeHeldAppends(m, { consumer: 'ride-test', messageId: key, reply: { ok: true } });
        await appendToOutbox(m, [{ topic: 'ride', key, value: { key } }]);
      });

    it('alone on the outbox, rides the next decision’s closing statement, or goes on its own soon after', async () => {
      await ds.query('DELETE FROM outbox');
      const published: unknown[] = [];
      const relay = new OutboxRelay(ds, async (_t, ms) => void published.push(...ms.map((m) => m.value)), {
        deletesRide: true,
      });
      await decide(relay, 'a');
      expect(published).toEqual([{ key: 'a' }]);
      expect(await keys()).toEqual(['a']); // published, its delete waiting for a ride
      await decide(relay, 'b');
      expect(await keys()).toEqual(['b']); // a's delete rode b's statement
      await waitFor(async () => (await keys()).length === 0, { timeoutMs: 5_000 });
      expect(published).toEqual([{ key: 'a' }, { key: 'b' }]);
      await relay.stop();
    });

    it('beside other processes, is sent right after the publish, without waiting for a ride', async () => {
      await ds.query('DELETE FROM outbox');
      const relay = new OutboxRelay(ds, async () => undefined);
      await decide(relay, 'c');
      // No sweep runs (the relay is not started): only the direct delete can remove it.
      await waitFor(async () => (await keys()).length === 0, { timeoutMs: 5_000 });
      await relay.stop();
    });
  });

  describe('the direct publish after commit (ADR 0039: one produce request with the reply)', () => {
    const keys = async () =>
      (await ds.query<{ key: string }[]>(`SELECT key FROM outbox WHERE topic = 'direct' ORDER BY id`)).map(
        (r) => r.key,
      );
    const decide = (relay: OutboxRelay, key: string) =>
      relay.transaction(async (m) => {
        await appendToOutbox(m, [{ topic: 'direct', key, value: { key } }]);
      });

    it('is handed to the bus before the transaction resolves; the caller does not wait for the broker', async () => {
      await ds.query('DELETE FROM outbox');
      const sent: unknown[] = [];
      let answer!: () => void;
      const broker = new Promise<void>((r) => (answer = r));
      const relay = new OutboxRelay(ds, async (_t, ms) => {
        sent.push(...ms.map((m) => m.value));
        await broker;
      });
      await decide(relay, 'd1');
      expect(sent).toEqual([{ key: 'd1' }]); // handed over, in the caller's turn
      expect(await keys()).toEqual(['d1']); // not deleted: the broker has not answered
      answer();
      await waitFor(async () => (await keys()).length === 0, { timeoutMs: 5_000 });
      await relay.stop();
    });

    it('a pass of the relay waits for a direct send in flight: a row sent directly is not sent twice', async () => {
      await ds.query('DELETE FROM outbox');
      const sent: string[] = [];
      let answer!: () => void;
      let first = true;
      const relay = new OutboxRelay(ds, async (_t, ms) => {
        sent.push(...ms.map((m) => (m.value as { key: string }).key));
        if (!first) return;
        first = false;
        await new Promise<void>((r) => (answer = r));
      });
      await decide(relay, 'e1'); // its direct send waits for the broker
      await ds.query(
        `INSERT INTO outbox (topic, key, value, headers) VALUES ('direct', 'e2', '{"key":"e2"}', '{}')`,
      );
      const pass = relay.kick();
      answer();
      await pass;
      await waitFor(async () => (await keys()).length === 0, { timeoutMs: 5_000 });
      // Without the wait, the pass would read e1 (not yet deleted) and send it a second time.
      expect(sent).toEqual(['e1', 'e2']);
      await relay.stop();
    });

    it('a direct send that fails is sent again by the relay, before the rows after it', async () => {
      await ds.query('DELETE FROM outbox');
      const sent: string[] = [];
      let fail!: (e: Error) => void;
      let first = true;
      const relay = new OutboxRelay(
        ds,
        async (_t, ms) => {
          sent.push(...ms.map((m) => (m.value as { key: string }).key));
          if (!first) return;
          first = false;
          await new Promise<void>((_, reject) => (fail = reject));
        },
        { onError: () => undefined },
      );
      await decide(relay, 'f1');
      await ds.query(
        `INSERT INTO outbox (topic, key, value, headers) VALUES ('direct', 'f2', '{"key":"f2"}', '{}')`,
      );
      fail(new Error('broker down'));
      await waitFor(async () => (await keys()).length === 0, { timeoutMs: 5_000 });
      expect(sent).toEqual(['f1', 'f1', 'f2']);
      await relay.stop();
    });
  });
});
