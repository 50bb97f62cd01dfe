import { InProcessBroker } from './in-process/in-process.broker';
import { partitionOf } from './in-process/stable-hash.util';
import { InProcessBus } from './in-process.bus';
import { NamespacedBus } from './namespaced.bus';
import { describeBusContract } from './testing/bus.contract';
import { startInProcessCrashableConsumer } from './testing/in-process-crash.harness';
import { MessageRecorder } from './testing/message.recorder';
import { uniqueName } from './testing/unique-name.util';
import { waitFor } from './testing/wait-for.util';

// Both contract instances share one broker, as two processes share a Kafka cluster.
const broker = new InProcessBroker({ partitions: 8 });

describeBusContract('InProcessBus', async () => new InProcessBus({ broker }), {
  deliveryTimeoutMs: 2_000,
  crashRecoveryTimeoutMs: 2_000,
  startCrashableConsumer: startInProcessCrashableConsumer,
});

describe('InProcessBus specifics', () => {
  let bus: InProcessBus;
  beforeEach(async () => {
    bus = new InProcessBus();
    await bus.start();
  });
  afterEach(() => bus.stop());

  it('never runs a handler inside publish: publish enqueues and returns', async () => {
    const recorder = new MessageRecorder();
    const topic = uniqueName('async');
    await bus.subscribe({ group: 'g', topics: [topic], handler: recorder.handler('g') });
    const published = bus.publish(topic, [{ key: 'k', value: 1 }]);
    expect(recorder.count).toBe(0);
    await published;
    expect(recorder.count).toBe(0);
    await waitFor(() => recorder.count === 1, { timeoutMs: 1_000 });
  });

  it('gathers for gatherMs: what a batch handler’s partitions receive meanwhile comes in one tick', async () => {
    const topic = uniqueName('gather');
    const batches: { keys: string[] }[] = [];
    const handle = async (ms: readonly { key: string }[]) =>
      void batches.push({ keys: ms.map((m) => m.key) });
    await bus.subscribe({
      group: 'g',
      topics: [topic],
      handler: (m) => handle([m]),
      batchHandler: handle,
      gatherMs: 200,
    });
    // Without gathering, the first message is delivered before the second is published.
    await bus.publish(topic, [{ key: 'k1', value: 1 }]);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    await bus.publish(topic, [
      { key: 'k1', value: 2 },
      { key: 'k2', value: 3 },
      { key: 'k3', value: 4 },
    ]);
    await waitFor(() => batches.flatMap((b) => b.keys).length === 4, { timeoutMs: 2_000 });
    // One partition's two messages, published apart, in one batch.
    expect(batches.find((b) => b.keys.includes('k1'))?.keys).toEqual(['k1', 'k1']);
  });

  it('delivers copies: no object is shared by publisher, groups or retries', async () => {
    const topic = uniqueName('copy');
    const seen: unknown[] = [];
    const mutate = async (message: { value: unknown }) => {
      const value = message.value as { tags: string[] };
      seen.push(structuredClone(value));
      value.tags.push('mutated');
      if (seen.length === 1) throw new Error('fail once');
    };
    await bus.subscribe({ group: 'a', topics: [topic], handler: mutate });
    const other = new MessageRecorder();
    await bus.subscribe({ group: 'b', topics: [topic], handler: other.handler('b') });
    const value = { tags: ['original'] };
    await bus.publish(topic, [{ key: 'k', value }]);
    value.tags.push('after-publish');
    await waitFor(() => seen.length === 2 && other.count === 1, { timeoutMs: 1_000 });
    expect(seen).toEqual([{ tags: ['original'] }, { tags: ['original'] }]);
    expect(other.by('b')[0]?.value).toEqual({ tags: ['original'] });
  });

  it('requires start() before use', async () => {
    const idle = new InProcessBus();
    await expect(idle.publish('t', [])).rejects.toThrow(/not started/);
    expect(await idle.healthy()).toBe(false);
  });

  it('rejects a value that is not JSON-serialisable, publishing nothing', async () => {
    const topic = uniqueName('bad');
    await expect(
      bus.publish(topic, [
        { key: 'a', value: 1 },
        { key: 'b', value: 10n },
      ]),
    ).rejects.toThrow(TypeError);
    expect(bus.broker.topic(topic).partitions.map((p) => p.end)).toEqual(new Array(8).fill(0));
  });

  it('retries a failing onDeadLetter hook before the partition moves on, instead of dropping it', async () => {
    const topic = uniqueName('hook');
    const order: string[] = [];
    let hookCalls = 0;
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await bus.subscribe({
        group: 'g',
        topics: [topic],
        maxAttempts: 1,
        handler: async (m) => {
          if (m.value === 'bad') throw new Error('cannot apply');
          order.push(`handled ${String(m.value)}`);
        },
        onDeadLetter: async (m) => {
          hookCalls += 1;
          if (hookCalls < 3) throw new Error('database away');
          order.push(`hook ${String(m.value)}`);
        },
      });
      await bus.publish(topic, [
        { key: 'run-1', value: 'bad' },
        { key: 'run-1', value: 'good' },
      ]);
      await waitFor(() => order.length === 2, { timeoutMs: 5_000 });
      expect(order).toEqual(['hook bad', 'handled good']);
      expect(hookCalls).toBe(3);
    } finally {
      errors.mockRestore();
    }
  });

  it('rejects maxAttempts below 1', async () => {
    await expect(
      bus.subscribe({ group: 'g', topics: ['t'], maxAttempts: 0, handler: async () => undefined }),
    ).rejects.toThrow(RangeError);
  });

  it('hashes keys to stable partitions spread over all of them', () => {
    expect(partitionOf('run-42', 8)).toBe(partitionOf('run-42', 8));
    const used = new Set(Array.from({ length: 200 }, (_, i) => partitionOf(`run-${i}`, 8)));
    expect(used.size).toBe(8);
  });

  it('lets a stopped subscriber finish and commit its in-flight message before the next owner starts', async () => {
    const topic = uniqueName('handover');
    const group = uniqueName('g');
    let entered = false;
    let release: () => void = () => undefined;
    const a = new MessageRecorder();
    const b = new MessageRecorder();
    const subA = await bus.subscribe({
      group,
      topics: [topic],
      handler: a.handler('a', async () => {
        entered = true;
        await new Promise<void>((resolve) => (release = resolve));
      }),
    });
    await bus.publish(topic, [{ key: 'k', value: 1 }]);
    await waitFor(() => entered, { timeoutMs: 1_000, what: 'a inside its handler' });
    await bus.subscribe({ group, topics: [topic], handler: b.handler('b') });
    let stopped = false;
    const stopping = subA.stop().then(() => (stopped = true));
    await bus.publish(topic, [{ key: 'k', value: 2 }]);
    // Give a wrong implementation time to hand the partition over early (not an assertion by itself).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ stopped, bCount: b.count }).toEqual({ stopped: false, bCount: 0 });
    release();
    await stopping;
    await waitFor(() => b.count === 1, { timeoutMs: 1_000, what: 'b handling message 2' });
    expect(a.by('a').map((m) => m.value)).toEqual([1]);
    expect(b.by('b').map((m) => m.value)).toEqual([2]);
  });

  it('with transientBudgetMs Infinity, waits out an outage without dead-lettering; a stop leaves the message to the next owner', async () => {
    class Outage extends Error {}
    const outageBus = new InProcessBus({ isTransientFailure: (e) => e instanceof Outage });
    await outageBus.start();
    try {
      const topic = uniqueName('outage');
      const group = uniqueName('g');
      const deadLetterTopic = uniqueName('dlq');
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
      const first = await outageBus.subscribe({
        group,
        topics: [topic],
        maxAttempts: 1,
        transientBudgetMs: Infinity,
        deadLetterTopic,
        handler,
      });
      await outageBus.publish(topic, [{ key: 'k', value: 1 }]);
      // More failures than maxAttempts: none counted.
      await waitFor(() => failedCalls >= 4, { timeoutMs: 5_000, what: 'the outage retried' });
      await first.stop(); // ends the wait: the message stays uncommitted
      const calls = failedCalls;
      down = false;
      await outageBus.subscribe({
        group,
        topics: [topic],
        maxAttempts: 1,
        transientBudgetMs: Infinity,
        deadLetterTopic,
        handler,
      });
      await waitFor(() => handled.length === 1, {
        timeoutMs: 5_000,
        what: 'the next owner handling the message',
      });
      expect(handled).toEqual([1]);
      expect(failedCalls).toBe(calls); // the stopped subscriber tried no more
      expect(dead.count).toBe(0);
    } finally {
      await outageBus.stop();
    }
  });

  it('rejects a negative transientBudgetMs', async () => {
    await expect(
      bus.subscribe({ group: 'g', topics: ['t'], transientBudgetMs: -1, handler: async () => undefined }),
    ).rejects.toThrow(RangeError);
  });
});

// The namespace decorator keeps every guarantee of the bus it wraps.
const namespacedBroker = new InProcessBroker({ partitions: 8 });
describeBusContract(
  'NamespacedBus over InProcessBus',
  async () => new NamespacedBus(new InProcessBus({ broker: namespacedBroker }), 'ns1'),
  {
    deliveryTimeoutMs: 2_000,
    crashRecoveryTimeoutMs: 2_000,
    startCrashableConsumer: async (args) => {
      // The crash hook lives on the inner bus: crash a subscriber of the qualified names.
      const bus = args.bus as NamespacedBus;
      return startInProcessCrashableConsumer({
        bus: bus.inner,
        group: bus.qualify(args.group),
        topic: bus.qualify(args.topic),
      });
    },
  },
);
