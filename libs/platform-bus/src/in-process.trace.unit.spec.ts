import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@openwop/observability';
import type { IncomingMessage } from './bus.port';
import { InProcessBus } from './in-process.bus';
import { waitFor } from './testing/wait-for.util';

// W3C trace context rides in the message headers of the in-process bus as it does on Kafka: the
// consumer's span continues the publisher's trace, and a message that already carries a context
// (relayed from the outbox) keeps it.

const exporter = new InMemorySpanExporter();
startTelemetry('bus-trace-test', { spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = trace.getTracer('test');

/** The first value `find` returns, once it returns one (5 s deadline). */
async function found<T>(find: () => T | undefined, what: string): Promise<T> {
  let value: T | undefined;
  await waitFor(() => (value = find()) !== undefined, { timeoutMs: 5_000, what });
  return value!;
}

let bus: InProcessBus;
const received: { message: IncomingMessage; traceId: string | undefined; spanId: string | undefined }[] = [];

beforeAll(async () => {
  bus = new InProcessBus({ partitions: 2 });
  await bus.start();
  await bus.subscribe({
    group: 'g',
    topics: ['t'],
    handler: async (message) => {
      const context = trace.getActiveSpan()?.spanContext();
      received.push({ message, traceId: context?.traceId, spanId: context?.spanId });
    },
  });
});

afterAll(async () => {
  await bus.stop();
});

it('continues the publisher trace in a CONSUMER span of the handler', async () => {
  const producer = await tracer.startActiveSpan('producer', async (span) => {
    await bus.publish('t', [{ key: 'k1', value: 1 }]);
    span.end();
    return span.spanContext();
  });
  const got = await found(() => received.find((r) => r.message.key === 'k1'), 'k1');
  expect(got.message.headers.traceparent).toBe(`00-${producer.traceId}-${producer.spanId}-01`);
  expect(got.traceId).toBe(producer.traceId);
  const consumer = await found(
    () => exporter.getFinishedSpans().find((s) => s.spanContext().spanId === got.spanId),
    'the consumer span',
  );
  expect(consumer.name).toBe('process t');
  expect(consumer.parentSpanContext?.spanId).toBe(producer.spanId);
  expect(consumer.attributes).toMatchObject({
    'messaging.system': 'in-process',
    'messaging.consumer.group.name': 'g',
  });
});

it('keeps a trace context the message already carries', async () => {
  const stored = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  await tracer.startActiveSpan('relay', async (span) => {
    await bus.publish('t', [{ key: 'k2', value: 2, headers: { traceparent: stored } }]);
    span.end();
  });
  const got = await found(() => received.find((r) => r.message.key === 'k2'), 'k2');
  expect(got.message.headers.traceparent).toBe(stored);
  expect(got.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
});

it('adds nothing outside a trace', async () => {
  await bus.publish('t', [{ key: 'k3', value: 3 }]);
  const got = await found(() => received.find((r) => r.message.key === 'k3'), 'k3');
  expect(got.message.headers).toEqual({});
});
