import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Topics, type CommandEnvelope, type CommandReply, type OpenInterruptData, type ResumeRunData } from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { InterruptTimerService } from './interrupt-timer.service';
import { InterruptModule } from './interrupt.module';

// A timeout storm (issue 19 item 5): 2,000 deadlines falling due at once, decided by two interrupt
// service instances over one Postgres database. Their timers claim batches with FOR UPDATE SKIP
// LOCKED; every interrupt must expire exactly once and the engine get exactly one run.resume each.

const STORM = 2_000;
let db: TestDatabase;
let platform: Platform;
const apps: INestApplicationContext[] = [];
const toEngine: CommandEnvelope[] = [];
const saved = { ms: process.env.INTERRUPT_TIMER_MS, batch: process.env.INTERRUPT_TIMER_BATCH };

function openCommand(runId: string): CommandEnvelope<string, OpenInterruptData> {
  const id = randomUUID();
  return {
    id,
    type: 'interrupt.open',
    occurredAt: new Date().toISOString(),
    correlationId: `corr-${id}`,
    actor: { tenant: 't1', principal: 'system:engine' },
    data: {
      runId,
      nodeId: 'gate',
      interruptId: `${runId}:gate:0`,
      kind: 'approval',
      key: `${runId}:gate:0`,
      data: { artifactId: 'a1', artifactType: 'doc', title: 'Ship it?', artifactData: {}, actions: ['accept', 'reject'] },
      // Far off: the storm is made by moving every deadline to now at once.
      timeoutMs: 3_600_000,
      requestedAt: new Date().toISOString(),
    },
  };
}

beforeAll(async () => {
  db = await createTestDatabase('interrupt_storm');
  // The poll loops stay out of the way (first tick an hour away); the test ticks both timers itself.
  process.env.INTERRUPT_TIMER_MS = '3600000';
  process.env.INTERRUPT_TIMER_BATCH = '200';
  platform = await startPlatform(
    readHostConfig('embedded', { OPENWOP_DATA_DIR: 'memory', DATABASE_URL: db.url, KAFKA_PARTITIONS: '2' }),
  );
  await platform.bus.subscribe({
    group: 'engine-probe',
    topics: [Topics.engineCommands],
    fromBeginning: true,
    handler: async (m: IncomingMessage) => {
      toEngine.push(m.value as CommandEnvelope);
    },
  });
  for (let i = 0; i < 2; i++) {
    const app = await NestFactory.createApplicationContext(rootModule(platform, [InterruptModule]), { logger: ['error'] });
    await app.init();
    apps.push(app);
  }
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  await platform?.close();
  await db?.drop();
  for (const [name, value] of [
    ['INTERRUPT_TIMER_MS', saved.ms],
    ['INTERRUPT_TIMER_BATCH', saved.batch],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}, 30_000);

it(`a storm of ${STORM} due deadlines on two timer instances: each interrupt expires once, each run gets one run.resume`, async () => {
  const runIds = Array.from({ length: STORM }, (_, i) => `storm-${i}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      for (let i = next++; i < STORM; i = next++) {
        const reply = await platform.bus.request<CommandReply<{ status: string }>>(
          Topics.interruptCommands,
          { key: runIds[i]!, value: openCommand(runIds[i]!) },
          { timeoutMs: 30_000 },
        );
        expect(reply).toMatchObject({ ok: true, data: { status: 'pending' } });
      }
    }),
  );
  await platform.dataSource.query(`UPDATE interrupts SET deadline_at = now() - interval '1 second' WHERE status = 'pending'`);

  const [a, b] = apps.map((app) => app.get(InterruptTimerService));
  const decided = await Promise.all([a!.tick(), b!.tick()]);
  // Both drained until nothing was left; neither decided a row the other did.
  expect(decided[0] + decided[1]).toBe(STORM);

  const rows: { status: string; n: string }[] = await platform.dataSource.query(
    `SELECT status, count(*)::text AS n FROM interrupts GROUP BY status`,
  );
  expect(rows).toEqual([{ status: 'expired', n: String(STORM) }]);
  const states: { n: string }[] = await platform.dataSource.query(
    `SELECT count(*)::text AS n FROM interrupts WHERE state->>'status' = 'expired' AND state ? 'expiredAt'`,
  );
  expect(states[0]!.n).toBe(String(STORM));

  const resumes = () => toEngine.filter((c) => c.type === 'run.resume');
  await waitFor(() => resumes().length >= STORM || undefined, { timeoutMs: 60_000, what: `${STORM} run.resume commands` });
  // A second round finds nothing due.
  expect(await Promise.all([a!.tick(), b!.tick()])).toEqual([0, 0]);
  const perRun = new Map<string, number>();
  for (const c of resumes()) {
    const data = c.data as ResumeRunData;
    expect(data).toMatchObject({ outcome: 'timeout', interruptId: `${data.runId}:gate:0` });
    perRun.set(data.runId, (perRun.get(data.runId) ?? 0) + 1);
  }
  expect(perRun.size).toBe(STORM);
  expect([...perRun.values()].every((n) => n === 1)).toBe(true);
  expect(new Set(resumes().map((c) => c.id)).size).toBe(STORM);
}, 180_000);
