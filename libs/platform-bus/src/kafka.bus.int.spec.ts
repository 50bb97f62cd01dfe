import { Headers, Topics } from '@openwop/contracts';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerUnreachableError } from './kafka/broker-unreachable.error';
import { brokersFromEnv } from './kafka/kafka-bus.options';
import { KafkaBus } from './kafka.bus';
import { describeBusContract } from './testing/bus.contract';
import { kafkaCrashHarness } from './testing/kafka-crash.harness';
import { MessageRecorder } from './testing/message.recorder';
import { uniqueName } from './testing/unique-name.util';
import { waitFor } from './testing/wait-for.util';

// A real broker: KAFKA_BROKERS, or the local one started by `bash tools/kafka/kafka.sh start`.
const brokers = brokersFromEnv(process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092');

describeBusContract(
  'KafkaBus',
  async () => new KafkaBus({ brokers, clientId: 'bus-contract', logLevel: logLevel.ERROR }),
  {
    deliveryTimeoutMs: 20_000,
    // The killed consumer's 6 s session timeout, then the next owner's join and fetch.
    crashRecoveryTimeoutMs: 25_000,
    startCrashableConsumer: kafkaCrashHarness(brokers),
    testTimeoutMs: 60_000,
  },
);

describe('KafkaBus specifics', () => {
  const bus = new KafkaBus({ brokers, clientId: 'bus-specifics', logLevel: logLevel.ERROR });
  beforeAll(() => bus.start(), 30_000);
  afterAll(() => bus.stop(), 30_000);

  it('dead-letters a value that is not JSON at once, and goes on with the partition', async () => {
    const topic = uniqueName('raw');
    const dead = new MessageRecorder();
    const dlq = await bus.subscribe({
      group: uniqueName('raw-dlq'),
      topics: [Topics.deadLetter],
      handler: dead.handler('dlq'),
    });
    const handled = new MessageRecorder();
    const sub = await bus.subscribe({
      group: uniqueName('raw-g'),
      topics: [topic],
      fromBeginning: true,
      handler: handled.handler('g'),
    });
    const producer = new Kafka({ brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    try {
      await producer.send({ topic, messages: [{ key: 'k', value: 'not json' }] });
    } finally {
      await producer.disconnect();
    }
    await bus.publish(topic, [{ key: 'k', value: { ok: true } }]);
    const mine = () => dead.by('dlq').filter((m) => m.headers[Headers.deadLetterTopic] === topic);
    await waitFor(() => handled.count === 1 && mine().length === 1, {
      timeoutMs: 20_000,
      what: 'the dead letter and the next message',
    });
    expect(handled.by('g').map((m) => m.value)).toEqual([{ ok: true }]);
    expect(mine()[0]).toMatchObject({ key: 'k', value: 'not json', headers: { [Headers.attempts]: '0' } });
    expect(mine()[0]?.headers[Headers.deadLetterReason]).toMatch(/^SyntaxError/);
    await Promise.all([sub.stop(), dlq.stop()]);
  }, 60_000);

  it('with gatherMs, hands messages published one by one over in few batches, in order, each once', async () => {
    const topic = uniqueName('gather');
    const batches: number[][] = [];
    const sub = await bus.subscribe({
      group: uniqueName('gather-g'),
      topics: [topic],
      fromBeginning: true,
      gatherMs: 1_000,
      handler: async (m) => void batches.push([(m.value as { n: number }).n]),
      batchHandler: async (ms) => void batches.push(ms.map((m) => (m.value as { n: number }).n)),
    });
    // One key, so one partition; each publish is acknowledged before the next one leaves. Without
    // gathering, a waiting fetch returns at the first message: about one batch per publish.
    for (let n = 0; n < 30; n++) await bus.publish(topic, [{ key: 'k', value: { n } }]);
    await waitFor(() => batches.flat().length >= 30, { timeoutMs: 20_000, what: 'the 30 messages' });
    expect(batches.flat()).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(batches.length).toBeLessThanOrEqual(10);
    await sub.stop();
  }, 60_000);

  it('answers a request that is not JSON with command_not_applied, and dead-letters it', async () => {
    const topic = uniqueName('raw-rpc');
    const replyTo = uniqueName('raw-reply');
    const replies = new MessageRecorder();
    const replySub = await bus.subscribe({
      group: uniqueName('raw-reply-g'),
      topics: [replyTo],
      fromBeginning: true,
      handler: replies.handler('r'),
    });
    const served: unknown[] = [];
    const sub = await bus.serve({
      group: uniqueName('raw-rpc-g'),
      topic,
      fromBeginning: true,
      handler: async (m) => (served.push(m.value), { ok: true, data: null }),
    });
    const producer = new Kafka({ brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    try {
      await producer.send({
        topic,
        messages: [
          {
            key: 'k',
            value: '{"id": "cmd-raw", "type": "thing.do"',
            headers: {
              [Headers.replyTo]: replyTo,
              [Headers.correlationId]: 'corr-raw',
              [Headers.messageId]: 'cmd-raw',
            },
          },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    await waitFor(() => replies.count === 1, { timeoutMs: 20_000, what: 'the refusal' });
    const [reply] = replies.by('r');
    expect(reply!.headers[Headers.correlationId]).toBe('corr-raw');
    expect(reply!.value).toMatchObject({
      ok: false,
      error: {
        code: 'command_not_applied',
        details: { messageId: 'cmd-raw', cause: 'undecodable', attempts: 0 },
      },
    });
    expect(served).toEqual([]);
    await Promise.all([sub.stop(), replySub.stop()]);
  }, 60_000);

  it('with transientBudgetMs Infinity, waits out an outage without dead-lettering; a stop leaves the message to the next owner', async () => {
    class Outage extends Error {}
    const outageBus = new KafkaBus({
      brokers,
      clientId: 'bus-outage',
      logLevel: logLevel.ERROR,
      isTransientFailure: (e) => e instanceof Outage,
    });
    await outageBus.start();
    try {
      const topic = uniqueName('outage');
      const group = uniqueName('g');
      const deadLetterTopic = uniqueName('outage-dlq');
      const dead = new MessageRecorder();
      await outageBus.subscribe({
        group: uniqueName('dlq'),
        topics: [deadLetterTopic],
        handler: dead.handler('dlq'),
      });
      let down = true;
      let failedCalls = 0;
      const handled: unknown[] = [];
      const handler = async (m: { value: unknown }) => {
        if (down) {
          failedCalls += 1;
          throw new Outage('too many clients');
        }
        handled.push(m.value);
      };
      const options = {
        group,
        topics: [topic],
        maxAttempts: 1,
        transientBudgetMs: Infinity,
        deadLetterTopic,
        handler,
        fromBeginning: true,
      };
      const first = await outageBus.subscribe(options);
      await outageBus.publish(topic, [{ key: 'k', value: 1 }]);
      // More failures than maxAttempts: none counted.
      await waitFor(() => failedCalls >= 4, { timeoutMs: 20_000, what: 'the outage retried' });
      await first.stop(); // ends the wait: the offset stays unresolved, so uncommitted
      const calls = failedCalls;
      down = false;
      await outageBus.subscribe(options);
      await waitFor(() => handled.length === 1, {
        timeoutMs: 30_000,
        what: 'the next owner handling the message',
      });
      expect(handled).toEqual([1]);
      expect(failedCalls).toBe(calls); // the stopped subscriber tried no more
      expect(dead.count).toBe(0);
    } finally {
      await outageBus.stop();
    }
  }, 90_000);

  it("decodes a message once for its first attempt, and a retry never sees the failed attempt's changes", async () => {
    const topic = uniqueName('copy');
    const seen: unknown[] = [];
    const sub = await bus.subscribe({
      group: uniqueName('copy-g'),
      topics: [topic],
      fromBeginning: true,
      handler: async (message) => {
        const value = message.value as { tags: string[] };
        seen.push({ attempt: message.attempt, value: structuredClone(value) });
        value.tags.push('mutated');
        if (seen.length < 3) throw new Error('fail twice');
      },
    });
    await bus.publish(topic, [{ key: 'k', value: { tags: ['original'] } }]);
    await waitFor(() => seen.length === 3, { timeoutMs: 20_000, what: 'three attempts' });
    expect(seen).toEqual([1, 2, 3].map((attempt) => ({ attempt, value: { tags: ['original'] } })));
    await sub.stop();
  }, 60_000);

  it('is unhealthy once stopped', async () => {
    const other = new KafkaBus({ brokers, logLevel: logLevel.ERROR });
    await other.start();
    expect(await other.healthy()).toBe(true);
    await other.stop();
    expect(await other.healthy()).toBe(false);
  }, 30_000);
});

describe('KafkaBus without a broker', () => {
  it('fails start() with a clear BrokerUnreachableError', async () => {
    const bus = new KafkaBus({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING });
    const error: unknown = await bus.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BrokerUnreachableError);
    expect((error as Error).message).toMatch(/no Kafka broker answered at 127\.0\.0\.1:1 \(KAFKA_BROKERS\)/);
    expect(await bus.healthy()).toBe(false);
  }, 30_000);
});
