import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { Attr, startTelemetry } from '@openwop/observability';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { EngineModule } from '@openwop/engine';
import { configureGatewayApp, GatewayModule } from '@openwop/gateway';
import { InterruptModule } from '@openwop/interrupt';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { ProjectorModule } from '@openwop/projector';
import {
  createTestDatabase,
  TEST_API_KEYS_JSON,
  TEST_KEYS,
  testTokenKeysJson,
  waitFor,
  type TestDatabase,
} from '@openwop/testing';
import { TokenModule } from '@openwop/token';

// Every app in one Nest process, but over the real Kafka broker and Postgres (distributed mode):
// each hop between apps goes through a Kafka topic or the outbox, so only the trace context in the
// message headers (and the outbox's stored traceparent) can connect the spans. An in-memory
// exporter collects them.

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry('trace-test', { spanProcessors: [new SimpleSpanProcessor({ exporter })] });

let db: TestDatabase;
let platform: Platform;
let app: NestExpressApplication;
let base: string;
const saved = { keys: process.env.WOP_API_KEYS, tokens: process.env.WOP_TOKEN_KEYS };

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TEST_KEYS.t1}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

const traceOf = (traceId: string) =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

beforeAll(async () => {
  db = await createTestDatabase('trace');
  process.env.WOP_API_KEYS = TEST_API_KEYS_JSON;
  process.env.WOP_TOKEN_KEYS = testTokenKeysJson();
  platform = await startPlatform(
    readHostConfig('distributed', {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      KAFKA_PARTITIONS: '2',
      OPENWOP_NAMESPACE: `test-trace-${randomBytes(4).toString('hex')}`,
    }),
  );
  app = await NestFactory.create<NestExpressApplication>(
    rootModule(platform, [EngineModule, ProjectorModule, InterruptModule, TokenModule, GatewayModule]),
    { logger: ['error'] },
  );
  configureGatewayApp(app);
  await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
}, 120_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await db?.drop();
  await telemetry.shutdown();
  for (const [name, value] of [
    ['WOP_API_KEYS', saved.keys],
    ['WOP_TOKEN_KEYS', saved.tokens],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}, 60_000);

it('follows a resolve from the gateway through every Kafka hop to the projection write in one trace', async () => {
  expect(telemetry.tracing).toBe(true);
  const created = await call('POST', '/v1/runs', { workflowId: 'conformance-approval' });
  expect(created.status).toBe(201);
  const runId = created.json.runId as string;
  await waitFor(async () => (await call('GET', `/v1/runs/${runId}`)).json.status === 'waiting-approval', {
    timeoutMs: 30_000,
    what: 'the run to wait for approval',
  });

  const resolved = await call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' });
  expect(resolved.status).toBe(200);
  const traceparent = resolved.headers.get('traceparent');
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const traceId = traceparent!.split('-')[1]!;

  // The run completes through interrupt → engine (outbox) → run events (outbox) → projector; wait
  // until the projection of run.completed and every span's parent have ended and been exported.
  const spans = await waitFor(
    () => {
      const trace = traceOf(traceId);
      const ids = new Set(trace.map((s) => s.spanContext().spanId));
      const completed = trace.some(
        (s) => s.name === 'openwop.projection.apply' && s.attributes[Attr.eventType] === 'run.completed',
      );
      const connected = trace.every((s) => parentOf(s) === undefined || ids.has(parentOf(s)!));
      return completed && connected && trace;
    },
    { timeoutMs: 30_000, what: `the projection of run.completed in trace ${traceId}` },
  );

  // One root: the gateway's SERVER span of the resolve request; every other span hangs under it.
  const roots = spans.filter((s) => parentOf(s) === undefined);
  const ROOT = 'POST /v1/runs/:runId/interrupts/:nodeId';
  expect(roots.map((s) => s.name)).toEqual([ROOT]);
  expect(roots[0]!.attributes).toMatchObject({
    'http.response.status_code': 200,
    [Attr.interruptId]: `${runId}:gate:0`,
  });
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const ancestry = (s: ReadableSpan): string[] => {
    const parent = byId.get(parentOf(s) ?? '');
    return parent ? [parent.name, ...ancestry(parent)] : [];
  };

  // The hops: the interrupt service's consumer, the engine's (run.resume from the interrupt
  // outbox), the projector's (run events from the engine outbox), each a CONSUMER span of Kafka.
  const consumed = (group: string) =>
    spans.filter(
      (s) =>
        s.attributes[Attr.messagingSystem] === 'kafka' &&
        String(s.attributes[Attr.messagingGroup]).endsWith(`.${group}`),
    );
  const interruptSpan = consumed('interrupt').find((s) => s.attributes[Attr.interruptId] !== undefined);
  expect(interruptSpan?.attributes).toMatchObject({
    [Attr.interruptKind]: 'approval',
    [Attr.interruptId]: `${runId}:gate:0`,
    [Attr.interruptCount]: 0,
  });
  expect(consumed('engine').length).toBeGreaterThan(0);
  expect(consumed('projector').length).toBeGreaterThan(0);

  const projection = spans.find(
    (s) => s.name === 'openwop.projection.apply' && s.attributes[Attr.eventType] === 'run.completed',
  )!;
  const chain = ancestry(projection);
  expect(chain[chain.length - 1]).toBe(ROOT);
  expect(chain.filter((name) => name.startsWith('process '))).toEqual(
    expect.arrayContaining([
      expect.stringContaining('run.public.run.event'),
      expect.stringContaining('engine.internal.run.command'),
      expect.stringContaining('interrupt.internal.interrupt.command'),
    ]),
  );
});
