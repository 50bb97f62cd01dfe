import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  Headers,
  Topics,
  type CommandEnvelope,
  type FailRunData,
  type OpenInterruptData,
} from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { InterruptModule } from './interrupt.module';

/**
 * The seam's failure rule in the interrupt service, on real Kafka and Postgres (no engine runs: a
 * probe records what reaches the engine's topic). An `interrupt.open` from the engine's outbox that
 * cannot be stored would leave its run waiting on an interrupt nobody holds: it is dead-lettered and
 * the engine is sent `run.fail` for the run.
 */
describe('interrupt service: a command that cannot be applied (Kafka, Postgres)', () => {
  let db: TestDatabase;
  let platform: Platform;
  let app: INestApplicationContext;
  const namespace = `seam-${randomUUID().slice(0, 8)}`;
  const toEngine: CommandEnvelope[] = [];
  const deadLetters: IncomingMessage[] = [];
  const engineActor = { tenant: 't1', principal: 'system:engine' };

  const envelope = <T>(
    type: string,
    data: T,
    actor: CommandEnvelope['actor'],
  ): CommandEnvelope<string, T> => {
    const id = randomUUID();
    return { id, type, occurredAt: new Date().toISOString(), correlationId: id, actor, data };
  };
  const openData = (runId: string, title: string): OpenInterruptData => ({
    runId,
    nodeId: 'gate',
    interruptId: `${runId}:gate:0`,
    kind: 'approval',
    key: `${runId}:gate:0`,
    data: { artifactId: 'a1', artifactType: 'doc', title, artifactData: {}, actions: ['accept', 'reject'] },
    requestedAt: new Date().toISOString(),
  });
  const statusOf = async (interruptId: string) =>
    (
      await platform.dataSource.query<{ status: string }[]>(
        'SELECT status FROM interrupts WHERE interrupt_id = $1',
        [interruptId],
      )
    )[0]?.status;

  beforeAll(async () => {
    db = await createTestDatabase('interrupt_failure');
    platform = await startPlatform(
      readHostConfig('distributed', {
        DATABASE_URL: db.url,
        KAFKA_BROKERS: process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092',
        KAFKA_PARTITIONS: '2',
        OPENWOP_NAMESPACE: namespace,
      }),
    );
    await platform.bus.subscribe({
      group: 'engine-probe',
      topics: [Topics.engineCommands],
      fromBeginning: true,
      handler: async (m) => void toEngine.push(m.value as CommandEnvelope),
    });
    await platform.bus.subscribe({
      group: 'dead-letter-probe',
      topics: [Topics.deadLetter],
      fromBeginning: true,
      handler: async (m) => void deadLetters.push(m),
    });
    app = await NestFactory.createApplicationContext(rootModule(platform, [InterruptModule]), {
      logger: ['error'],
    });
    await app.init();
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await platform?.close();
    await db?.drop();
  }, 60_000);

  it('an interrupt.open from the outbox that cannot be stored is dead-lettered, and the engine is told to fail the run', async () => {
    const runId = `r-open-${randomUUID().slice(0, 8)}`;
    // Postgres refuses a NUL character in jsonb: the open fails the same way on every attempt.
    const open = envelope('interrupt.open', openData(runId, 'nul \u0000 title'), engineActor);

    await platform.bus.publish(Topics.interruptCommands, [{ key: runId, value: open }]);

    const fail = await waitFor(
      () => toEngine.find((c) => c.type === 'run.fail' && (c.data as FailRunData).runId === runId),
      {
        timeoutMs: 30_000,
        what: 'run.fail for the run',
      },
    );
    expect(fail).toMatchObject({
      id: `fail:${open.id}`,
      causationId: open.id,
      actor: { tenant: 't1', principal: 'system:interrupt' },
      data: { runId, failedCommandId: open.id, failedCommandType: 'interrupt.open' },
    });
    expect((fail.data as FailRunData).reason).toMatch(/Unicode|\\u0000/);
    const letter = await waitFor(() => deadLetters.find((m) => (m.value as { id?: string }).id === open.id), {
      what: 'the dead letter',
    });
    expect(letter.headers[Headers.deadLetterCause]).toBe('exhausted');
    expect(await statusOf(`${runId}:gate:0`)).toBeUndefined();
  }, 120_000);
});
