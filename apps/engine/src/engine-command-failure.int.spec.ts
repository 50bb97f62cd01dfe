import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage as HttpRequest, ServerResponse } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  COMMAND_NOT_APPLIED,
  Headers,
  Topics,
  type CommandEnvelope,
  type CommandReply,
  type ResumeRunData,
  type RunEventDoc,
} from '@openwop/contracts';
import type { RunRecord } from '@openwop/engine-domain';
import { startTelemetry, type Telemetry } from '@openwop/observability';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { EngineModule } from './engine.module';

/**
 * The failure rule of the command seam, end to end in the engine, on real Kafka and Postgres: a
 * `run.resume` whose decision cannot be saved (Postgres refuses a NUL character in jsonb, on every
 * attempt) is retried, then dead-lettered with its reason, counted and logged; its requester, if
 * any, is answered `command_not_applied` at once; and the run it would have carried forward ends
 * `failed` with a clear error instead of waiting forever. Cancel of that run is answered at once.
 */
describe('engine: a command that cannot be applied (Kafka, Postgres)', () => {
  let db: TestDatabase;
  let platform: Platform;
  let app: INestApplicationContext;
  let telemetry: Telemetry;
  const namespace = `seam-${randomUUID().slice(0, 8)}`;
  const deadLetters: IncomingMessage[] = [];
  const runEvents: RunEventDoc[] = [];
  const logged: string[] = [];
  const actor = { tenant: 't1', principal: 'alice' };

  const envelope = <T>(type: string, data: T, id = randomUUID()): CommandEnvelope<string, T> => ({
    id,
    type,
    occurredAt: new Date().toISOString(),
    correlationId: id,
    actor,
    data,
  });
  const send = <R = unknown>(command: CommandEnvelope, key: string): Promise<CommandReply<R>> =>
    platform.bus.request<CommandReply<R>>(
      Topics.engineCommands,
      { key, value: command },
      { timeoutMs: 15_000 },
    );
  const runState = async (runId: string) =>
    (
      await platform.dataSource.query<{ state: RunRecord }[]>(
        'SELECT state FROM engine_runs WHERE run_id = $1',
        [runId],
      )
    )[0]?.state;
  const lettersOf = (key: string) => deadLetters.filter((m) => m.key === key);
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
  const deadLetterCount = async (cause: string) => {
    const line = (await scrape()).split('\n').find(
      (l) =>
        l.startsWith('openwop_bus_dead_letters_total{') &&
        l.includes(`cause="${cause}"`) &&
        // The broker's name of the topic: the namespace prefixes it.
        l.includes(`topic="${namespace}.${Topics.engineCommands}"`),
    );
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  /** A run of conformance-approval, suspended on its gate. */
  async function suspendedRun(runId: string): Promise<string> {
    const reply = await send(envelope('run.start', { runId, workflowId: 'conformance-approval' }), runId);
    expect(reply).toMatchObject({ ok: true, data: { status: 'waiting-approval' } });
    return (await runState(runId))!.pending!.interruptId;
  }

  /** A resume the engine decides, but whose state Postgres cannot store (a NUL in jsonb). */
  const poisonResume = (runId: string, interruptId: string): ResumeRunData => ({
    runId,
    nodeId: 'gate',
    interruptId,
    key: interruptId,
    outcome: 'resolved',
    resumeValue: { action: 'accept', comment: 'nul \u0000 here' },
    resolvedBy: 'alice',
    resolvedAt: new Date().toISOString(),
  });

  /** The run ended failed, with the error naming the command that could not be applied. */
  async function expectFailedRun(runId: string, commandType: string): Promise<void> {
    await waitFor(async () => (await runState(runId))?.status === 'failed' || undefined, {
      timeoutMs: 30_000,
      what: `${runId} failed`,
    });
    const failed = await waitFor(() => runEvents.find((e) => e.runId === runId && e.type === 'run.failed'), {
      timeoutMs: 30_000,
      what: `run.failed of ${runId}`,
    });
    const error = (failed.payload as { error: { code: string; message: string } }).error;
    expect(error.code).toBe(COMMAND_NOT_APPLIED);
    expect(error.message).toContain(`${commandType} could not be applied`);
    expect(error.message).toMatch(/Unicode|\\u0000/);
    expect(
      runEvents.filter((e) => e.runId === runId && e.type === 'node.failed').map((e) => e.nodeId),
    ).toEqual(['gate']);
  }

  beforeAll(async () => {
    telemetry = startTelemetry('engine-failure-test', { env: {} });
    db = await createTestDatabase('engine_failure');
    platform = await startPlatform(
      readHostConfig('distributed', {
        DATABASE_URL: db.url,
        KAFKA_BROKERS: process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092',
        KAFKA_PARTITIONS: '2',
        OPENWOP_NAMESPACE: namespace,
      }),
    );
    await platform.bus.subscribe({
      group: 'dead-letter-probe',
      topics: [Topics.deadLetter],
      fromBeginning: true,
      handler: async (m) => void deadLetters.push(m),
    });
    await platform.bus.subscribe({
      group: 'run-events-probe',
      topics: [Topics.runEvents],
      fromBeginning: true,
      handler: async (m) => void runEvents.push(m.value as RunEventDoc),
    });
    const write = console.error;
    jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(' '));
      write(...args);
    });
    app = await NestFactory.createApplicationContext(rootModule(platform, [EngineModule]), {
      logger: ['error'],
    });
    await app.init();
  }, 90_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await app?.close();
    await platform?.close();
    await db?.drop();
    await telemetry?.shutdown();
  }, 60_000);

  it('answers a requester command_not_applied at once, dead-letters the command with its reason, counts and logs it, and fails the run', async () => {
    const runId = `r-req-${randomUUID().slice(0, 8)}`;
    const interruptId = await suspendedRun(runId);
    const before = await deadLetterCount('exhausted');
    const resume = envelope('run.resume', poisonResume(runId, interruptId));

    const reply = await send(resume, runId);

    expect(reply).toMatchObject({
      ok: false,
      error: {
        code: COMMAND_NOT_APPLIED,
        details: { messageId: resume.id, cause: 'exhausted', attempts: 5 },
      },
    });
    const [letter] = await waitFor(() => (lettersOf(runId).length > 0 ? lettersOf(runId) : undefined), {
      timeoutMs: 30_000,
      what: 'the dead letter',
    });
    expect(letter!.value).toMatchObject({ id: resume.id, type: 'run.resume' });
    expect(letter!.headers).toMatchObject({
      [Headers.deadLetterCause]: 'exhausted',
      [Headers.deadLetterTopic]: Topics.engineCommands,
      [Headers.attempts]: '5',
    });
    expect(letter!.headers[Headers.deadLetterReason]).toMatch(/Unicode|\\u0000/);
    expect(await deadLetterCount('exhausted')).toBe(before + 1);
    const line = logged.find((l) => l.includes(resume.id) && l.startsWith('dead-lettered'));
    expect(line).toContain('run.resume');
    expect(line).toContain(JSON.stringify(runId));
    expect(line).toMatch(/Unicode|\\u0000/);

    await expectFailedRun(runId, 'run.resume');
    // Cancel of the run is answered at once: it is already terminal.
    const cancel = await send(envelope('run.cancel', { runId }), runId);
    expect(cancel).toMatchObject({
      ok: false,
      error: { code: 'run_terminal', details: { runStatus: 'failed' } },
    });
  }, 120_000);

  it('fails the run of a command that has no requester (sent from an outbox) once it was set aside', async () => {
    const runId = `r-box-${randomUUID().slice(0, 8)}`;
    const interruptId = await suspendedRun(runId);
    const resume = envelope('run.resume', poisonResume(runId, interruptId));

    await platform.bus.publish(Topics.engineCommands, [{ key: runId, value: resume }]);

    await expectFailedRun(runId, 'run.resume');
    const letters = lettersOf(runId);
    expect(
      letters.map((m) => [(m.value as { type: string }).type, m.headers[Headers.deadLetterCause]]),
    ).toEqual([['run.resume', 'exhausted']]);
  }, 120_000);
});
