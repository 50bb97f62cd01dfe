import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { CommandReply } from '@openwop/contracts';
import { InProcessBus, type IncomingMessage, type Subscription } from '@openwop/platform-bus';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { CommandSeam, type UnappliedNotice } from './command-seam';
import { openDatabase } from './data-source';
import { DecidedThrough } from './decided-through';
import { appendToOutbox, OutboxRelay } from './outbox';

/**
 * ADR 0038 on a real Postgres and the in-process bus: seam A's decision sends seam B a command;
 * in one process B decides it in A's transaction, unless that would break exactly-once, failure
 * semantics or per-key order, in which case the command goes through the outbox and the bus.
 */

type ACommand = { id: string; type: 'a.do'; data: { key: string; forward?: BCommand['data'] } };
type BCommand = { id: string; type: 'b.do'; data: { key: string; mode?: 'refuse' | 'throw-once' | 'ok' } };

describe('decided through (Postgres, in-process bus)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let bus: InProcessBus;
  let relay: OutboxRelay;
  let registry: DecidedThrough;
  const subscriptions: Subscription[] = [];
  /** B's decisions, in the order they were made, and how each reached B. */
  const bDecided: { id: string; via: 'bus' | 'through' }[] = [];
  const bViaBus: string[] = [];
  const unapplied: { id: string; notice: UnappliedNotice }[] = [];
  const events: IncomingMessage[] = [];
  let bGate: Promise<void> = Promise.resolve();
  const thrownOnce = new Set<string>();
  let handlingViaBus = false;

  const rows = async (table: 'a_probe' | 'b_probe', key: string) =>
    (await ds.query<{ id: string }[]>(`SELECT id FROM ${table} WHERE key = $1 ORDER BY seq`, [key])).map(
      (r) => r.id,
    );
  const records = async (consumer: string, id: string) =>
    Number(
      (
        await ds.query<{ n: string }[]>(
          'SELECT count(*)::text AS n FROM processed_messages WHERE consumer = $1 AND message_id = $2',
          [consumer, id],
        )
      )[0]!.n,
    );

  const seamA = () =>
    new CommandSeam<ACommand>({
      consumer: 'probe-a',
      parse: (v) => v as ACommand,
      ds,
      relay,
      warn: () => undefined,
      decidedThrough: { registry, topic: 'probe.a' },
      routes: {
        'a.do': {
          decide: async (m: EntityManager, c) => {
            await m.query('INSERT INTO a_probe (id, key) VALUES ($1, $2)', [c.id, c.data.key]);
            if (c.data.forward) {
              const b: BCommand = { id: `b:${c.id}`, type: 'b.do', data: c.data.forward };
              await appendToOutbox(m, [{ topic: 'probe.b', key: c.data.key, value: b }]);
            }
            return { ok: true, data: { a: c.id } };
          },
        },
      },
    });
  const seamB = () =>
    new CommandSeam<BCommand>({
      consumer: 'probe-b',
      parse: (v) => v as BCommand,
      ds,
      relay,
      warn: () => undefined,
      decidedThrough: { registry, topic: 'probe.b' },
      routes: {
        'b.do': {
          decide: async (m: EntityManager, c) => {
            if (c.data.mode === 'refuse')
              return { ok: false, error: { code: 'conflict', message: 'B refuses' } };
            if (c.data.mode === 'throw-once' && !thrownOnce.has(c.id)) {
              thrownOnce.add(c.id);
              throw new Error('B fails once');
            }
            await m.query('INSERT INTO b_probe (id, key) VALUES ($1, $2)', [c.id, c.data.key]);
            await appendToOutbox(m, [{ topic: 'probe.events', key: c.data.key, value: { decided: c.id } }]);
            bDecided.push({ id: c.id, via: handlingViaBus ? 'bus' : 'through' });
            return { ok: true, data: { b: c.id } };
          },
          unapplied: async (c, notice) => {
            unapplied.push({ id: c.id, notice });
          },
        },
      },
    });

  let a: CommandSeam<ACommand>;
  let b: CommandSeam<BCommand>;
  /** Hands A a command as the bus would (A's topic is not served here: its message is the root). */
  const handleA = (command: ACommand) =>
    a.handle({ topic: 'probe.a', key: command.data.key, value: command });

  beforeAll(async () => {
    db = await createTestDatabase('decided_through');
    ds = await openDatabase({ url: db.url });
    await ds.query('CREATE TABLE a_probe (seq bigserial, id text PRIMARY KEY, key text NOT NULL)');
    await ds.query('CREATE TABLE b_probe (seq bigserial, id text PRIMARY KEY, key text NOT NULL)');
    bus = new InProcessBus({ partitions: 4 });
    await bus.start();
    relay = new OutboxRelay(ds, (topic, messages) => bus.publish(topic, messages), { sweepMs: 50 });
    relay.start();
    registry = new DecidedThrough((topic, key, except) => bus.broker.unsettled(topic, key, except));
    a = seamA();
    b = seamB();
    subscriptions.push(
      await bus.serve({
        group: 'probe-b',
        topic: 'probe.b',
        fromBeginning: true,
        maxAttempts: 2,
        handler: async (m) => {
          await bGate;
          bViaBus.push((m.value as BCommand).id);
          handlingViaBus = true;
          try {
            return await b.handle(m);
          } finally {
            handlingViaBus = false;
          }
        },
        onDeadLetter: (m, notice) => b.unapplied(m, notice),
      }),
      await bus.subscribe({
        group: 'probe-events',
        topics: ['probe.events'],
        handler: async (m) => void events.push(m),
      }),
    );
  });
  afterAll(async () => {
    for (const s of subscriptions) await s.stop();
    await relay?.stop();
    await bus?.stop();
    await ds?.destroy();
    await db?.drop();
  });

  const command = (key: string, forward?: BCommand['data']): ACommand => ({
    id: randomUUID(),
    type: 'a.do',
    data: { key, ...(forward ? { forward } : {}) },
  });

  it("decides B in A's transaction: both records, no command on the bus, B's own appends still published", async () => {
    const key = `k-${randomUUID()}`;
    const c = command(key, { key });
    expect(await handleA(c)).toEqual({ ok: true, data: { a: c.id } });
    expect(await rows('a_probe', key)).toEqual([c.id]);
    expect(await rows('b_probe', key)).toEqual([`b:${c.id}`]);
    expect(await records('probe-a', c.id)).toBe(1);
    expect(await records('probe-b', `b:${c.id}`)).toBe(1);
    expect(bDecided).toContainEqual({ id: `b:${c.id}`, via: 'through' });
    await waitFor(() => events.some((e) => (e.value as { decided: string }).decided === `b:${c.id}`), {
      what: "B's event",
    });
    expect(bViaBus).not.toContain(`b:${c.id}`);
    expect(bus.broker.unsettled('probe.b', key)).toBe(0);
    await waitFor(
      async () =>
        Number(
          (
            await ds.query<{ n: string }[]>('SELECT count(*)::text AS n FROM outbox WHERE key = $1', [key])
          )[0]!.n,
        ) === 0,
      { what: "the outbox emptied of B's event" },
    );
  });

  it("commits atomically: when A's record is taken, B's decision rolls back with A's", async () => {
    const key = `k-${randomUUID()}`;
    const c = command(key, { key });
    await ds.query(
      `INSERT INTO processed_messages (consumer, message_id, reply) VALUES ('probe-a', $1, '{"ok":true,"data":"first"}')`,
      [c.id],
    );
    expect(await handleA(c)).toEqual({ ok: true, data: 'first' });
    expect(await rows('a_probe', key)).toEqual([]);
    expect(await rows('b_probe', key)).toEqual([]);
    expect(await records('probe-b', `b:${c.id}`)).toBe(0);
  });

  it('a refusal of B falls back to the outbox path: A decided once, B refused on the bus and its unapplied hook told', async () => {
    const key = `k-${randomUUID()}`;
    const c = command(key, { key, mode: 'refuse' });
    expect(await handleA(c)).toEqual({ ok: true, data: { a: c.id } });
    expect(await rows('a_probe', key)).toEqual([c.id]);
    const told = await waitFor(() => unapplied.find((u) => u.id === `b:${c.id}`), {
      what: "B's unapplied hook",
    });
    expect(told.notice.cause).toBe('refused');
    expect(bViaBus).toContain(`b:${c.id}`);
    expect(await rows('b_probe', key)).toEqual([]);
    expect(await records('probe-b', `b:${c.id}`)).toBe(0);
  });

  it('a throw of B falls back to the outbox path, where the bus retries it as today', async () => {
    const key = `k-${randomUUID()}`;
    const c = command(key, { key, mode: 'throw-once' });
    expect(await handleA(c)).toEqual({ ok: true, data: { a: c.id } });
    expect(await rows('a_probe', key)).toEqual([c.id]);
    await waitFor(async () => (await rows('b_probe', key)).length === 1, {
      what: 'B decided through the bus',
    });
    expect(bDecided).toContainEqual({ id: `b:${c.id}`, via: 'bus' });
    expect(await records('probe-b', `b:${c.id}`)).toBe(1);
  });

  it('a redelivery of a command decided through answers the stored reply and decides nothing', async () => {
    const key = `k-${randomUUID()}`;
    const c = command(key, { key });
    await handleA(c);
    const again: BCommand = { id: `b:${c.id}`, type: 'b.do', data: { key } };
    const reply = await bus.request<CommandReply>('probe.b', { key, value: again }, { timeoutMs: 10_000 });
    expect(reply).toEqual({ ok: true, data: { b: `b:${c.id}` } });
    expect(await rows('b_probe', key)).toEqual([`b:${c.id}`]);
    expect(await records('probe-b', `b:${c.id}`)).toBe(1);
  });

  it('waits behind an older outbox row of the same key: the command goes through the outbox, in order', async () => {
    const key = `k-${randomUUID()}`;
    const older: BCommand = { id: `older-${randomUUID()}`, type: 'b.do', data: { key } };
    // An older row of the key, committed and not yet published (the sweep leaves it 2 s to its writer).
    await ds.query(`INSERT INTO outbox (topic, key, value) VALUES ('probe.b', $1, $2::jsonb)`, [
      key,
      JSON.stringify(older),
    ]);
    const c = command(key, { key });
    await handleA(c);
    await waitFor(async () => (await rows('b_probe', key)).length === 2, {
      timeoutMs: 15_000,
      what: 'both decided by B',
    });
    expect(await rows('b_probe', key)).toEqual([older.id, `b:${c.id}`]);
    expect(bViaBus).toEqual(expect.arrayContaining([older.id, `b:${c.id}`]));
  });

  it('waits behind an older message of the same key still on the bus: decided after it, in order', async () => {
    const key = `k-${randomUUID()}`;
    let open!: () => void;
    bGate = new Promise<void>((resolve) => (open = resolve));
    const older: BCommand = { id: `older-${randomUUID()}`, type: 'b.do', data: { key } };
    await bus.publish('probe.b', [{ key, value: older }]);
    await waitFor(() => bus.broker.unsettled('probe.b', key) === 1, { what: 'the older message on the bus' });
    const c = command(key, { key });
    await handleA(c);
    expect(await rows('b_probe', key)).toEqual([]);
    open();
    bGate = Promise.resolve();
    await waitFor(async () => (await rows('b_probe', key)).length === 2, { what: 'both decided by B' });
    expect(await rows('b_probe', key)).toEqual([older.id, `b:${c.id}`]);
  });
});
