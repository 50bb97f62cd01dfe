import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Topics, type CommandEnvelope, type CommandReply, type OpenInterruptData } from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { claimExpiryId, claimMessageId } from './common/claim-events.outbox';
import { InterruptModule } from './interrupt.module';

// Claim changes told to the run log (ADR 0035) over the real platform in embedded mode and a fresh
// Postgres database, with two interrupt service instances (two timers). No engine runs: a probe
// group records the engine's topic.

let db: TestDatabase;
let platform: Platform;
let apps: INestApplicationContext[] = [];
const toEngine: CommandEnvelope[] = [];
const savedTimerMs = process.env.INTERRUPT_TIMER_MS;
const SYSTEM = { tenant: 't1', principal: 'system:engine' };

function envelope<T>(type: string, data: T, actor = SYSTEM): CommandEnvelope<string, T> {
  const id = randomUUID();
  return { id, type, occurredAt: new Date().toISOString(), correlationId: `corr-${id}`, actor, data };
}

function openData(runId: string): OpenInterruptData {
  return {
    runId,
    nodeId: 'gate',
    interruptId: `${runId}:gate:0`,
    kind: 'approval',
    key: `${runId}:gate:0`,
    data: { artifactId: 'a1', artifactType: 'doc', title: 'Ship it?', artifactData: {}, actions: ['accept', 'reject'] },
    requestedAt: new Date().toISOString(),
    timeoutMs: 600_000,
  };
}

const send = <T = unknown>(command: CommandEnvelope): Promise<CommandReply<T>> =>
  platform.bus.request<CommandReply<T>>(
    Topics.interruptCommands,
    { key: (command.data as { runId: string }).runId, value: command },
    { timeoutMs: 10_000 },
  );

const as = (principal: string) => ({ tenant: 't1', principal });
const claimChanges = (runId: string) =>
  toEngine
    .filter((c) => c.type === 'run.escalate' && (c.data as { runId?: string }).runId === runId)
    .map((c) => ({ id: c.id, ...(c.data as { type: string; nodeId: string; interruptId: string; payload: Record<string, unknown> }) }));

beforeAll(async () => {
  db = await createTestDatabase('interrupt_claim_events');
  process.env.INTERRUPT_TIMER_MS = '50';
  platform = await startPlatform(readHostConfig('embedded', { OPENWOP_DATA_DIR: 'memory', DATABASE_URL: db.url, KAFKA_PARTITIONS: '2' }));
  await platform.bus.subscribe({
    group: 'engine-probe',
    topics: [Topics.engineCommands],
    fromBeginning: true,
    handler: async (m: IncomingMessage) => {
      toEngine.push(m.value as CommandEnvelope);
    },
  });
  for (let i = 0; i < 2; i += 1) {
    const app = await NestFactory.createApplicationContext(rootModule(platform, [InterruptModule]), { logger: ['error'] });
    await app.init();
    apps.push(app);
  }
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  apps = [];
  await platform?.close();
  await db?.drop();
  if (savedTimerMs === undefined) delete process.env.INTERRUPT_TIMER_MS;
  else process.env.INTERRUPT_TIMER_MS = savedTimerMs;
}, 30_000);

describe('claim changes go to the run log', () => {
  it('tells a claim, its lapse (once, by one of two timers), the next claim and its release, in order', async () => {
    expect(await send(envelope('interrupt.open', openData('c1')))).toMatchObject({ ok: true });
    const claimed = await send<{ claimExpiresAt: string }>(
      envelope('interrupt.claim', { runId: 'c1', nodeId: 'gate', leaseMs: 300 }, as('alice')),
    );
    expect(claimed).toMatchObject({ ok: true, data: { claimedBy: 'alice' } });
    const expiresAt = claimed.ok ? claimed.data.claimExpiresAt : '';
    await waitFor(() => claimChanges('c1').length >= 2, { timeoutMs: 10_000, what: 'the lapse of alice\'s lease' });
    const rows: { claimed_by: string | null; claim_expires_at: Date | null }[] = await platform.dataSource.query(
      `SELECT claimed_by, claim_expires_at FROM interrupts WHERE interrupt_id = 'c1:gate:0'`,
    );
    expect(rows[0]).toEqual({ claimed_by: null, claim_expires_at: null });
    expect(await send(envelope('interrupt.claim', { runId: 'c1', nodeId: 'gate' }, as('bob')))).toMatchObject({ ok: true });
    expect(await send(envelope('interrupt.release', { runId: 'c1', nodeId: 'gate' }, as('bob')))).toMatchObject({ ok: true });
    await waitFor(() => claimChanges('c1').length >= 4, { timeoutMs: 10_000, what: 'bob\'s claim and release' });
    const changes = claimChanges('c1');
    expect(changes.map(({ type, payload }) => [type, payload])).toEqual([
      ['interrupt.claimed', { claimedBy: 'alice', expiresAt }],
      ['interrupt.released', { previousClaimant: 'alice', reason: 'expired' }],
      ['interrupt.claimed', { claimedBy: 'bob', expiresAt: expect.any(String) }],
      ['interrupt.released', { previousClaimant: 'bob', reason: 'released' }],
    ]);
    expect(changes[1]!.id).toBe(claimMessageId('c1:gate:0', claimExpiryId('c1:gate:0', expiresAt), 0));
    // Ids fit the engine's 128-character causationId whatever the interrupt id's length.
    expect(changes.every((c) => /^claim:[\w-]{43}$/.test(c.id))).toBe(true);
    expect(changes.every((c) => c.interruptId === 'c1:gate:0' && c.nodeId === 'gate')).toBe(true);
  });

  it('a refused claim and a release of nothing tell nothing', async () => {
    expect(await send(envelope('interrupt.open', openData('c2')))).toMatchObject({ ok: true });
    expect(await send(envelope('interrupt.claim', { runId: 'c2', nodeId: 'gate' }, as('alice')))).toMatchObject({ ok: true });
    expect(await send(envelope('interrupt.claim', { runId: 'c2', nodeId: 'gate' }, as('bob')))).toMatchObject({
      ok: false,
      error: { code: 'interrupt_claimed' },
    });
    expect(await send(envelope('interrupt.release', { runId: 'c1', nodeId: 'gate' }, as('carol')))).toMatchObject({ ok: true });
    // A later witness on the same topic proves the probe saw everything sent before it.
    expect(await send(envelope('interrupt.release', { runId: 'c2', nodeId: 'gate' }, as('alice')))).toMatchObject({ ok: true });
    await waitFor(() => claimChanges('c2').length >= 2, { timeoutMs: 10_000, what: 'alice\'s claim and release' });
    expect(claimChanges('c2').map((c) => [c.type, c.payload])).toEqual([
      ['interrupt.claimed', { claimedBy: 'alice', expiresAt: expect.any(String) }],
      ['interrupt.released', { previousClaimant: 'alice', reason: 'released' }],
    ]);
    expect(claimChanges('c1')).toHaveLength(4);
  });
});
