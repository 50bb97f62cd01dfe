import { randomUUID } from 'node:crypto';
import type { IncomingMessage as HttpRequest, ServerResponse } from 'node:http';
import type { DataSource, EntityManager } from 'typeorm';
import { logLevel } from 'kafkajs';
import {
  COMMAND_NOT_APPLIED,
  Headers,
  SchemaValidationError,
  Topics,
  type CommandReply,
} from '@openwop/contracts';
import { startTelemetry, type Telemetry } from '@openwop/observability';
import {
  KafkaBus,
  NamespacedBus,
  type Bus,
  type IncomingMessage,
  type Subscription,
} from '@openwop/platform-bus';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { CommandSeam, type UnappliedNotice } from './command-seam';
import { openDatabase } from './data-source';
import { isDatabaseUnavailable } from './database-unavailable';
import { appendToOutbox, OutboxRelay } from './outbox';

/**
 * The seam's failure rule on real Kafka and Postgres, one command per step that can fail: decide
 * (the handler throws), save (Postgres refuses the transaction's write), publish (the outbox
 * relay's send fails for a while). A deterministic failure is retried, then answered
 * `command_not_applied` at once, dead-lettered with its reason, counted, logged and handed to the
 * route's `unapplied` hook; a transient one is retried until it succeeds, and changes nothing twice.
 */

type ProbeType = 'probe.decide' | 'probe.save' | 'probe.publish' | 'probe.flaky';
/** One command shape per type, so the seam's route table can tell them apart. */
type Probe = { [T in ProbeType]: { id: string; type: T; data: { runId: string } } }[ProbeType];

/** Thrown by the flaky route and the failing publish: the bus retries it without counting. */
class ProbeOutage extends Error {
  constructor(what: string) {
    super(`${what} is down for a moment`);
    this.name = 'ProbeOutage';
  }
}

describe('CommandSeam failure rule (Kafka, Postgres)', () => {
  const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(',');
  const namespace = `seam-${randomUUID().slice(0, 8)}`;
  const topic = 'probe.commands';
  const outTopic = 'probe.out';
  const group = 'probe-seam';
  let db: TestDatabase;
  let ds: DataSource;
  let kafka: KafkaBus;
  let bus: Bus;
  let relay: OutboxRelay;
  let telemetry: Telemetry;
  const subscriptions: Subscription[] = [];
  const deadLetters: IncomingMessage[] = [];
  const published: IncomingMessage[] = [];
  const unapplied: { id: string; notice: UnappliedNotice }[] = [];
  const logged: string[] = [];
  /** Sends to `outTopic` that still fail (the relay's publish). */
  let publishOutages = 0;
  /** Calls of the flaky route that still fail. */
  let flakyOutages = 0;
  let flakyCalls = 0;

  const probe = (type: ProbeType, runId = `run-${randomUUID().slice(0, 8)}`): Probe => ({
    id: randomUUID(),
    type,
    data: { runId },
  });
  const request = (command: Probe) =>
    bus.request<CommandReply>(topic, { key: command.data.runId, value: command }, { timeoutMs: 15_000 });
  const rowsOf = async (runId: string) =>
    Number(
      (
        await ds.query<{ n: string }[]>('SELECT count(*)::text AS n FROM seam_probe WHERE run_id = $1', [
          runId,
        ])
      )[0]!.n,
    );
  const letterOf = (command: Probe) =>
    waitFor(() => deadLetters.find((m) => (m.value as Probe).id === command.id), {
      timeoutMs: 30_000,
      what: `the dead letter of ${command.type}`,
    });
  const scrape = () =>
    new Promise<string>((resolve) => {
      let body = '';
      const res = {
        statusCode: 0,
        setHeader: () => undefined,
        write: (chunk: string) => ((body += chunk), true),
        end: (chunk?: string) => resolve(body + (chunk ?? '')),
      } as unknown as ServerResponse;
      telemetry.metricsHandler({} as HttpRequest, res);
    });
  const deadLetterCount = async () => {
    const line = (await scrape())
      .split('\n')
      .find(
        (l) =>
          l.startsWith('openwop_bus_dead_letters_total{') &&
          l.includes('cause="exhausted"') &&
          l.includes(`topic="${namespace}.${topic}"`),
      );
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  /** Every failing command: a prompt refusal, a dead letter with the reason, one more count, one log line, the hook. */
  async function expectSetAside(
    command: Probe,
    reply: CommandReply,
    before: number,
    reason: RegExp,
  ): Promise<void> {
    expect(reply).toMatchObject({
      ok: false,
      error: {
        code: COMMAND_NOT_APPLIED,
        details: { messageId: command.id, messageType: command.type, cause: 'exhausted', attempts: 3 },
      },
    });
    const letter = await letterOf(command);
    expect(letter.key).toBe(command.data.runId);
    expect(letter.headers).toMatchObject({
      [Headers.deadLetterCause]: 'exhausted',
      [Headers.deadLetterTopic]: topic,
      [Headers.attempts]: '3',
    });
    expect(letter.headers[Headers.deadLetterReason]).toMatch(reason);
    await waitFor(async () => (await deadLetterCount()) === before + 1, { what: 'the dead-letter count' });
    const lines = logged.filter((l) => l.includes(command.id));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(command.type);
    expect(lines[0]).toContain(JSON.stringify(command.data.runId));
    expect(lines[0]).toMatch(reason);
    // The hook is told last, after the reply went out: wait for it rather than race it.
    await waitFor(() => unapplied.some((u) => u.id === command.id), { what: 'the unapplied hook' });
    expect(unapplied.filter((u) => u.id === command.id).map((u) => u.notice.cause)).toEqual(['exhausted']);
  }

  beforeAll(async () => {
    telemetry = startTelemetry('seam-test', { env: {} });
    db = await createTestDatabase('command_seam');
    ds = await openDatabase({ url: db.url });
    await ds.query(
      'CREATE TABLE seam_probe (run_id text NOT NULL, command_id text PRIMARY KEY, n smallint NOT NULL)',
    );
    kafka = new KafkaBus({
      brokers,
      clientId: 'seam-test',
      logLevel: logLevel.ERROR,
      isTransientFailure: (e) => e instanceof ProbeOutage || isDatabaseUnavailable(e),
    });
    bus = new NamespacedBus(kafka, namespace);
    await bus.start();
    relay = new OutboxRelay(
      ds,
      async (t, messages) => {
        if (t === outTopic && publishOutages > 0) {
          publishOutages -= 1;
          throw new ProbeOutage('the broker');
        }
        await bus.publish(t, messages);
      },
      { sweepMs: 200, onError: () => undefined },
    );
    relay.start();
    const write = console.error;
    jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(' '));
      write(...args);
    });

    const save = (m: EntityManager, c: Probe, n: number) =>
      m.query('INSERT INTO seam_probe (run_id, command_id, n) VALUES ($1, $2, $3)', [c.data.runId, c.id, n]);
    const seam = new CommandSeam<Probe>({
      consumer: group,
      parse: (value) => {
        const v = value as Partial<Probe> | null;
        if (!v || typeof v.id !== 'string' || typeof v.data?.runId !== 'string')
          throw new SchemaValidationError('Probe', [{ path: '/', message: 'not a probe' }]);
        return v as Probe;
      },
      ds,
      relay,
      warn: () => undefined,
      routes: {
        'probe.decide': {
          decide: async () => {
            throw new TypeError("Cannot read properties of undefined (reading 'gate')");
          },
          unapplied: async (c, notice) => void unapplied.push({ id: c.id, notice }),
        },
        // 70000 does not fit a smallint: Postgres refuses the write on every attempt.
        'probe.save': {
          decide: async (m, c) => (await save(m, c, 70_000), { ok: true, data: 'saved' }),
          unapplied: async (c, notice) => void unapplied.push({ id: c.id, notice }),
        },
        'probe.publish': {
          decide: async (m, c) => {
            await save(m, c, 1);
            await appendToOutbox(m, [{ topic: outTopic, key: c.data.runId, value: { after: c.id } }]);
            return { ok: true, data: 'decided' };
          },
        },
        'probe.flaky': {
          decide: async (m, c) => {
            flakyCalls += 1;
            if (flakyOutages > 0) {
              flakyOutages -= 1;
              throw new ProbeOutage('the database');
            }
            await save(m, c, 1);
            return { ok: true, data: 'decided' };
          },
        },
      },
    });
    subscriptions.push(
      await bus.subscribe({
        group: 'probe-dead-letters',
        topics: [Topics.deadLetter],
        fromBeginning: true,
        handler: async (m) => void deadLetters.push(m),
      }),
      await bus.subscribe({
        group: 'probe-out',
        topics: [outTopic],
        fromBeginning: true,
        handler: async (m) => void published.push(m),
      }),
      await bus.serve({
        group,
        topic,
        maxAttempts: 3,
        handler: (m) => seam.handle(m),
        onDeadLetter: (m, notice) => seam.unapplied(m, notice),
      }),
    );
  }, 90_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    for (const s of subscriptions) await s.stop();
    await relay?.stop();
    await bus?.stop();
    await ds?.destroy();
    await db?.drop();
    await telemetry?.shutdown();
  }, 60_000);

  it('throws in decide: answered command_not_applied, dead-lettered with the reason, counted, logged, handed to unapplied', async () => {
    const command = probe('probe.decide');
    const before = await deadLetterCount();
    const reply = await request(command);
    await expectSetAside(command, reply, before, /TypeError: Cannot read properties of undefined/);
    expect(await rowsOf(command.data.runId)).toBe(0);
  });

  it('throws in save (Postgres refuses the transaction): the same, and nothing was written', async () => {
    const command = probe('probe.save');
    const before = await deadLetterCount();
    const reply = await request(command);
    await expectSetAside(command, reply, before, /out of range for type smallint/);
    expect(await rowsOf(command.data.runId)).toBe(0);
  });

  it('throws in publish (the relay cannot send for a while): the decision stands and is answered, the message follows once the send works', async () => {
    publishOutages = 3;
    const command = probe('probe.publish');
    const reply = await request(command);
    expect(reply).toEqual({ ok: true, data: 'decided' });
    await waitFor(() => published.find((m) => (m.value as { after?: string }).after === command.id), {
      timeoutMs: 30_000,
      what: 'the outbox message, once the broker takes it',
    });
    expect(publishOutages).toBe(0);
    expect(await rowsOf(command.data.runId)).toBe(1);
    expect(deadLetters.filter((m) => (m.value as Probe).id === command.id)).toEqual([]);
  });

  it('a transient failure (the database away) is retried past maxAttempts without a dead letter, and decided once', async () => {
    flakyOutages = 4; // more than maxAttempts (3): transient failures do not use the attempts up
    flakyCalls = 0;
    const command = probe('probe.flaky');
    const reply = await request(command);
    expect(reply).toEqual({ ok: true, data: 'decided' });
    expect(flakyCalls).toBe(5);
    expect(await rowsOf(command.data.runId)).toBe(1);
    // A redelivery of the same command decides again, finds the dedupe record, rolls back and
    // answers the stored reply: nothing is written twice.
    expect(await request(command)).toEqual({ ok: true, data: 'decided' });
    expect(flakyCalls).toBe(6);
    expect(await rowsOf(command.data.runId)).toBe(1);
    expect(deadLetters.filter((m) => (m.value as Probe).id === command.id)).toEqual([]);
  });

  it('a command nobody waits for (sent from an outbox) that cannot be applied is dead-lettered, counted, logged and handed to unapplied', async () => {
    const command = probe('probe.decide');
    const before = await deadLetterCount();
    await bus.publish(topic, [{ key: command.data.runId, value: command }]);
    const letter = await letterOf(command);
    expect(letter.headers[Headers.deadLetterCause]).toBe('exhausted');
    await waitFor(async () => (await deadLetterCount()) === before + 1, { what: 'the dead-letter count' });
    await waitFor(() => unapplied.some((u) => u.id === command.id), { what: 'the unapplied hook' });
    expect(logged.filter((l) => l.includes(command.id))).toHaveLength(1);
  });
});
