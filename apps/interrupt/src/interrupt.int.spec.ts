import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  CREDENTIAL_RESUME_SCHEMA,
  Topics,
  type CommandEnvelope,
  type CommandReply,
  type OpenInterruptData,
  type ResolveInterruptResult,
  type ResumeRunData,
} from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { InterruptCommandsConsumer } from './interrupt-commands.consumer';
import { InterruptModule } from './interrupt.module';

// The interrupt service over the real platform in embedded mode: the in-process bus and a fresh
// Postgres database. No engine runs: a probe group records what reaches the engine's topic.

let db: TestDatabase;
let platform: Platform;
let app: INestApplicationContext;
const toEngine: CommandEnvelope[] = [];
const savedTimerMs = process.env.INTERRUPT_TIMER_MS;

const ACTOR = { tenant: 't1', principal: 'alice' };

function envelope<T>(
  type: string,
  data: T,
  actor = ACTOR,
  id: string = randomUUID(),
): CommandEnvelope<string, T> {
  return { id, type, occurredAt: new Date().toISOString(), correlationId: `corr-${id}`, actor, data };
}

function openData(runId: string, over: Partial<OpenInterruptData> = {}): OpenInterruptData {
  return {
    runId,
    nodeId: 'gate',
    interruptId: `${runId}:gate:0`,
    kind: 'approval',
    key: `${runId}:gate:0`,
    data: {
      artifactId: 'a1',
      artifactType: 'doc',
      title: 'Ship it?',
      artifactData: {},
      actions: ['accept', 'reject', 'ask'],
    },
    requestedAt: new Date().toISOString(),
    ...over,
  };
}

function send<T = unknown>(
  command: CommandEnvelope,
  key = (command.data as { runId: string }).runId,
): Promise<CommandReply<T>> {
  return platform.bus.request<CommandReply<T>>(
    Topics.interruptCommands,
    { key, value: command },
    { timeoutMs: 10_000 },
  );
}

async function open(runId: string, over: Partial<OpenInterruptData> = {}): Promise<void> {
  const reply = await send(
    envelope('interrupt.open', openData(runId, over), { tenant: 't1', principal: 'system:engine' }),
  );
  expect(reply).toMatchObject({ ok: true, data: { status: 'pending' } });
}

const resolve = (runId: string, resumeValue: unknown, principal = 'alice', tenant = 't1') =>
  send<ResolveInterruptResult>(
    envelope('interrupt.resolve', { runId, nodeId: 'gate', resumeValue, via: 'api' }, { tenant, principal }),
  );

const engineCommandsOf = (runId: string, type?: string) =>
  toEngine.filter(
    (c) => (c.data as { runId?: string }).runId === runId && (type === undefined || c.type === type),
  );

async function count(table: string): Promise<number> {
  const rows: { n: string }[] = await platform.dataSource.query(`SELECT count(*)::text AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

async function statusOf(interruptId: string): Promise<string | undefined> {
  const rows: { status: string }[] = await platform.dataSource.query(
    'SELECT status FROM interrupts WHERE interrupt_id = $1',
    [interruptId],
  );
  return rows[0]?.status;
}

const EARLY_RUN = 'early-run';

beforeAll(async () => {
  db = await createTestDatabase('interrupt');
  process.env.INTERRUPT_TIMER_MS = '50';
  platform = await startPlatform(
    readHostConfig('embedded', { OPENWOP_DATA_DIR: 'memory', DATABASE_URL: db.url, KAFKA_PARTITIONS: '2' }),
  );
  // Published by "the engine's outbox" before the interrupt service ever joined its group.
  await platform.bus.publish(Topics.interruptCommands, [
    {
      key: EARLY_RUN,
      value: envelope('interrupt.open', openData(EARLY_RUN), { tenant: 't1', principal: 'system:engine' }),
    },
  ]);
  await platform.bus.subscribe({
    group: 'engine-probe',
    topics: [Topics.engineCommands],
    fromBeginning: true,
    handler: async (m: IncomingMessage) => {
      toEngine.push(m.value as CommandEnvelope);
    },
  });
  app = await NestFactory.createApplicationContext(rootModule(platform, [InterruptModule]), {
    logger: ['error'],
  });
  await app.init();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await db?.drop();
  if (savedTimerMs === undefined) delete process.env.INTERRUPT_TIMER_MS;
  else process.env.INTERRUPT_TIMER_MS = savedTimerMs;
}, 30_000);

describe('interrupt service', () => {
  it('handles an interrupt.open published before its consumer group first joined', async () => {
    await waitFor(async () => (await statusOf(`${EARLY_RUN}:gate:0`)) === 'pending', {
      what: 'the early open to be held',
    });
  });

  it('first resolve wins: two concurrent resolves give one ok and one interrupt_already_resolved, one run.resume', async () => {
    await open('race');
    const replies = await Promise.all([
      resolve('race', { action: 'accept' }, 'alice'),
      resolve('race', { action: 'reject' }, 'bob'),
    ]);
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(replies.filter((r) => !r.ok).map((r) => !r.ok && r.error.code)).toEqual([
      'interrupt_already_resolved',
    ]);
    const winner = replies.find((r) => r.ok)!;
    expect(winner).toEqual({
      ok: true,
      data: { runId: 'race', nodeId: 'gate', interruptId: 'race:gate:0', status: 'resolved' },
    });
    await waitFor(() => engineCommandsOf('race', 'run.resume').length === 1, {
      what: 'run.resume on the engine topic',
    });
    await waitFor(async () => (await count('outbox')) === 0, { what: 'the outbox to drain' });
    const [resume] = engineCommandsOf('race', 'run.resume') as CommandEnvelope<'run.resume', ResumeRunData>[];
    expect(resume).toMatchObject({
      id: 'resume:race:gate:0',
      data: {
        runId: 'race',
        nodeId: 'gate',
        interruptId: 'race:gate:0',
        key: 'race:gate:0',
        outcome: 'resolved',
        resolvedBy: 'alice',
      },
    });
    expect(resume!.data.resumeValue).toMatchObject({ action: 'accept', decidedBy: 'alice' });
    expect(resume!.data.notes).toEqual([
      expect.objectContaining({ type: 'approval.received', action: 'accept', decidedBy: 'alice' }),
    ]);
  });

  it('first resolve wins under real concurrency: the row lock decides between two transactions', async () => {
    await open('race-db');
    const consumer = app.get(InterruptCommandsConsumer);
    const message = (principal: string): IncomingMessage => ({
      topic: Topics.interruptCommands,
      partition: 0,
      offset: '0',
      key: 'race-db',
      headers: {},
      attempt: 1,
      value: envelope(
        'interrupt.resolve',
        { runId: 'race-db', nodeId: 'gate', resumeValue: { action: 'accept' }, via: 'api' },
        { tenant: 't1', principal },
      ),
    });
    const replies = await Promise.all([consumer.handle(message('alice')), consumer.handle(message('bob'))]);
    expect(replies.map((r) => (r.ok ? 'ok' : r.error.code)).sort()).toEqual([
      'interrupt_already_resolved',
      'ok',
    ]);
    await waitFor(() => engineCommandsOf('race-db', 'run.resume').length === 1, { what: 'one run.resume' });
    await waitFor(async () => (await count('outbox')) === 0, { what: 'the outbox to drain' });
    expect(engineCommandsOf('race-db', 'run.resume')).toHaveLength(1);
  });

  it('a redelivered command gets the stored reply and has its effect once', async () => {
    await open('redeliver', { kind: 'custom', data: { customKind: 'x', payload: null } });
    const command = envelope('interrupt.resolve', {
      runId: 'redeliver',
      nodeId: 'gate',
      resumeValue: { n: 1 },
      via: 'api',
    });
    const first = await send(command);
    const second = await send(command);
    expect(second).toEqual(first);
    expect(first).toMatchObject({ ok: true, data: { status: 'resolved' } });
    await waitFor(() => engineCommandsOf('redeliver', 'run.resume').length === 1, { what: 'run.resume' });
    await waitFor(async () => (await count('outbox')) === 0, { what: 'the outbox to drain' });
    expect(engineCommandsOf('redeliver', 'run.resume')).toHaveLength(1);
  });

  it('a replay-only resolve answers the verdict its id got before, and otherwise decides nothing', async () => {
    await open('replay', { kind: 'custom', data: { customKind: 'x', payload: null } });
    const data = {
      runId: 'replay',
      nodeId: 'gate',
      resumeValue: { n: 1 },
      via: 'token' as const,
      replayOnly: true,
    };
    // Never decided: refused, and the interrupt stays pending.
    const probe = await send(envelope('interrupt.resolve', data));
    expect(probe).toMatchObject({ ok: false, error: { code: 'interrupt_already_resolved' } });
    expect(await statusOf('replay:gate:0')).toBe('pending');
    // Decided once: the same id asked replay-only gets that first verdict back.
    const command = envelope('interrupt.resolve', {
      runId: 'replay',
      nodeId: 'gate',
      resumeValue: { n: 1 },
      via: 'token',
    });
    const first = await send(command);
    expect(first).toMatchObject({ ok: true, data: { status: 'resolved' } });
    expect(await send({ ...command, data: { ...command.data, replayOnly: true } })).toEqual(first);
    await waitFor(() => engineCommandsOf('replay', 'run.resume').length === 1, { what: 'run.resume' });
  });

  it('times out: the durable timer sends run.resume with outcome timeout; a later resolve is already resolved', async () => {
    await open('slow', { timeoutMs: 300 });
    const resume = (await waitFor(() => engineCommandsOf('slow', 'run.resume')[0], {
      timeoutMs: 5_000,
      what: 'the timeout resume',
    })) as CommandEnvelope<'run.resume', ResumeRunData>;
    expect(resume.data).toMatchObject({
      outcome: 'timeout',
      interruptId: 'slow:gate:0',
      resolvedBy: 'system:timeout',
    });
    expect(resume.data.resumeValue).toBeUndefined();
    expect(await statusOf('slow:gate:0')).toBe('expired');
    expect(await resolve('slow', { action: 'accept' })).toMatchObject({
      ok: false,
      error: { code: 'interrupt_already_resolved' },
    });
  });

  it('cancel: pending interrupts are cancelled, run.cancel reaches the engine, a later resolve gets interrupt_already_resolved', async () => {
    await open('cancel-me', { timeoutMs: 60_000 });
    const reply = await send(envelope('run.cancel', { runId: 'cancel-me', reason: 'changed my mind' }));
    expect(reply).toEqual({
      ok: true,
      data: { runId: 'cancel-me', status: 'cancelling', cancelledInterrupts: ['cancel-me:gate:0'] },
    });
    expect(await statusOf('cancel-me:gate:0')).toBe('cancelled');
    expect(await resolve('cancel-me', { action: 'accept' })).toMatchObject({
      ok: false,
      error: { code: 'interrupt_already_resolved', details: { status: 'cancelled' } },
    });
    const forwarded = await waitFor(() => engineCommandsOf('cancel-me', 'run.cancel')[0], {
      what: 'run.cancel on the engine topic',
    });
    expect(forwarded).toMatchObject({
      type: 'run.cancel',
      data: { runId: 'cancel-me', reason: 'changed my mind' },
      actor: ACTOR,
    });
    expect(engineCommandsOf('cancel-me', 'run.resume')).toEqual([]);
  });

  it('cancel of a run with no interrupt still forwards; an interrupt opened afterwards is born cancelled', async () => {
    expect(await send(envelope('run.cancel', { runId: 'no-gate' }))).toMatchObject({
      ok: true,
      data: { status: 'cancelling', cancelledInterrupts: [] },
    });
    await waitFor(() => engineCommandsOf('no-gate', 'run.cancel').length === 1, {
      what: 'run.cancel forwarded',
    });
    await send(envelope('interrupt.open', openData('no-gate'), { tenant: 't1', principal: 'system:engine' }));
    expect(await statusOf('no-gate:gate:0')).toBe('cancelled');
    expect(await resolve('no-gate', { action: 'accept' })).toMatchObject({
      ok: false,
      error: { code: 'interrupt_already_resolved', details: { status: 'cancelled' } },
    });
  });

  it('ask and quorum: intermediate answers are pending, the final resume carries every note', async () => {
    await open('quorum', {
      data: {
        artifactId: 'a',
        artifactType: 'doc',
        title: 'T',
        artifactData: {},
        actions: ['accept', 'reject', 'ask'],
        requiredApprovals: 2,
      },
    });
    expect(await resolve('quorum', { action: 'ask', question: 'Which draft?' }, 'carol')).toMatchObject({
      ok: true,
      data: { status: 'pending' },
    });
    expect(await resolve('quorum', { action: 'accept' }, 'alice')).toMatchObject({
      ok: true,
      data: { status: 'pending' },
    });
    expect(await resolve('quorum', { action: 'accept' }, 'alice')).toMatchObject({
      ok: false,
      error: { code: 'validation_error' },
    });
    expect(await resolve('quorum', { decision: 'approved' }, 'bob')).toMatchObject({
      ok: true,
      data: { status: 'resolved' },
    });
    const resume = (await waitFor(() => engineCommandsOf('quorum', 'run.resume')[0], {
      what: 'the quorum resume',
    })) as CommandEnvelope<'run.resume', ResumeRunData>;
    expect(resume.data.resolvedBy).toBe('bob');
    expect(resume.data.notes?.map((n) => (n as { type: string }).type)).toEqual([
      'ask',
      'approval.received',
      'approval.received',
    ]);
    expect(resume.data.resumeValue).toMatchObject({
      action: 'accept',
      decidedBy: 'bob',
      votes: [{ decidedBy: 'alice' }, { decidedBy: 'bob' }],
    });
  });

  it("refuses another tenant's resolve with interrupt_not_found", async () => {
    await open('tenant-run');
    expect(await resolve('tenant-run', { action: 'accept' }, 'eve', 't2')).toMatchObject({
      ok: false,
      error: { code: 'interrupt_not_found' },
    });
    expect(await statusOf('tenant-run:gate:0')).toBe('pending');
  });

  it('refuses a resolve for a node with no interrupt with interrupt_not_found', async () => {
    expect(await resolve('nobody-home', { action: 'accept' })).toMatchObject({
      ok: false,
      error: { code: 'interrupt_not_found' },
    });
  });

  it("refuses a credential interrupt's authorized without the gateway's attestation for it, and changes nothing; declined needs none", async () => {
    // RFC 0199 §C.4, ADR 0044: the command straight to the interrupt service, as when the
    // gateway's snapshot did not show the interrupt yet and its check did not run.
    const credential = (runId: string) =>
      open(runId, {
        kind: 'credential',
        data: {
          provider: 'acme',
          scopes: ['read'],
          reason: 'missing',
          connectUrl: `https://wop.test/oauth/connect/${runId}/gate`,
        },
        resumeSchema: CREDENTIAL_RESUME_SCHEMA,
      });
    const answer = (runId: string, outcome: string, credentialCheckedFor?: string) =>
      send<ResolveInterruptResult>(
        envelope('interrupt.resolve', {
          runId,
          nodeId: 'gate',
          resumeValue: { outcome },
          via: 'api',
          ...(credentialCheckedFor !== undefined ? { credentialCheckedFor } : {}),
        }),
      );
    await credential('cred');
    for (const attested of [undefined, 'cred:gate:earlier']) {
      expect(await answer('cred', 'authorized', attested)).toMatchObject({
        ok: false,
        error: {
          code: 'validation_error',
          details: { field: 'resumeValue', errors: [{ path: '/resumeValue/outcome' }] },
        },
      });
    }
    expect(await statusOf('cred:gate:0')).toBe('pending');
    expect(engineCommandsOf('cred')).toEqual([]);
    // Attested for this interrupt: taken.
    expect(await answer('cred', 'authorized', 'cred:gate:0')).toMatchObject({
      ok: true,
      data: { status: 'resolved' },
    });
    await credential('cred-declined');
    expect(await answer('cred-declined', 'declined')).toMatchObject({
      ok: true,
      data: { status: 'resolved' },
    });
    const resumes = await waitFor(
      () => {
        const found = [
          ...engineCommandsOf('cred', 'run.resume'),
          ...engineCommandsOf('cred-declined', 'run.resume'),
        ];
        return found.length === 2 ? (found as CommandEnvelope<'run.resume', ResumeRunData>[]) : undefined;
      },
      { what: 'the two credential resumes' },
    );
    expect(resumes.map((r) => r.data.resumeValue)).toEqual([
      { outcome: 'authorized' },
      { outcome: 'declined' },
    ]);
  });

  // Values the edge may refuse but the contracts allow: the core holds them (ADR 0019).
  it.each([1e15, 1e300])(
    'holds a gate with timeoutMs %s: pending with a deadline Postgres takes, and resolvable',
    async (timeoutMs) => {
      const runId = `huge-timeout-${timeoutMs}`;
      await open(runId, { timeoutMs });
      const [row] = await platform.dataSource.query<{ status: string; deadline: string }[]>(
        `SELECT status, to_char(deadline_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS deadline FROM interrupts WHERE interrupt_id = $1`,
        [`${runId}:gate:0`],
      );
      expect(row).toEqual({ status: 'pending', deadline: '9999-12-31' });
      expect(await resolve(runId, { action: 'accept' })).toMatchObject({
        ok: true,
        data: { status: 'resolved' },
      });
      await waitFor(() => engineCommandsOf(runId, 'run.resume').length === 1 || undefined, {
        what: 'run.resume',
      });
    },
  );

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'answers at once a resume value with a top-level %s key as an unknown field (the key is data), then resolves by a clean answer',
    async (key) => {
      const runId = `proto-key-${key}`;
      await open(runId);
      const resumeValue = JSON.parse(
        `{${JSON.stringify(key)}: {"action": "reject"}, "action": "accept", "feedback": "ok"}`,
      ) as unknown;
      const refused = await resolve(runId, resumeValue);
      expect(refused).toMatchObject({ ok: false, error: { code: 'validation_error' } });
      expect(JSON.stringify(refused)).toContain(`unknown field ${key}`);
      expect(await statusOf(`${runId}:gate:0`)).toBe('pending');
      expect(engineCommandsOf(runId, 'run.resume')).toEqual([]);
      expect(await resolve(runId, { action: 'accept', feedback: 'ok' })).toMatchObject({
        ok: true,
        data: { status: 'resolved' },
      });
      const [resume] = await waitFor(
        () =>
          engineCommandsOf(runId, 'run.resume').length === 1
            ? engineCommandsOf(runId, 'run.resume')
            : undefined,
        { what: 'run.resume' },
      );
      expect(JSON.stringify(resume!.data)).toContain('"action":"accept"');
      expect(await statusOf(`${runId}:gate:0`)).toBe('resolved');
    },
  );

  describe('malformed commands get validation_error and write nothing', () => {
    const tables = ['interrupts', 'processed_messages', 'outbox', 'interrupt_cancelled_runs'];
    let before: number[];

    beforeAll(async () => {
      await open('strict');
      await waitFor(async () => (await count('outbox')) === 0, { what: 'the outbox to drain' });
      before = await Promise.all(tables.map(count));
    });

    afterAll(async () => {
      expect(await Promise.all(tables.map(count))).toEqual(before);
      expect(await statusOf('strict:gate:0')).toBe('pending');
    });

    it.each([
      [
        'missing nodeId',
        envelope('interrupt.resolve', { runId: 'strict', resumeValue: { action: 'accept' }, via: 'api' }),
      ],
      ['unknown via', envelope('interrupt.resolve', { runId: 'strict', nodeId: 'gate', via: 'fax' })],
      [
        'unknown field',
        envelope('interrupt.resolve', { runId: 'strict', nodeId: 'gate', via: 'api', extra: 1 }),
      ],
      ['unknown type', envelope('interrupt.explode', { runId: 'strict' })],
      [
        'no principal',
        envelope('interrupt.resolve', { runId: 'strict', nodeId: 'gate', via: 'api' }, {
          tenant: 't1',
        } as typeof ACTOR),
      ],
      ['bad kind on open', envelope('interrupt.open', { ...openData('strict'), kind: 'telepathy' })],
    ])('%s', async (_what, command) => {
      const reply = await send(command, 'strict');
      expect(reply).toMatchObject({
        ok: false,
        error: { code: 'validation_error', details: { errors: expect.any(Array) } },
      });
    });

    it('an action the gate does not offer', async () => {
      expect(await resolve('strict', { action: 'refine', feedback: 'x' })).toMatchObject({
        ok: false,
        error: { code: 'validation_error' },
      });
    });

    it('a decidedBy naming someone else', async () => {
      expect(await resolve('strict', { action: 'accept', decidedBy: 'mallory' })).toMatchObject({
        ok: false,
        error: { code: 'validation_error' },
      });
    });

    it('a non-object envelope', async () => {
      expect(await send({ nope: true } as unknown as CommandEnvelope, 'strict')).toMatchObject({
        ok: false,
        error: { code: 'validation_error' },
      });
    });
  });
});

describe('durable timer across a restart', () => {
  it('a deadline passed while no instance ran is expired by the next instance', async () => {
    await open('restart', { timeoutMs: 3_600_000 });
    await app.close();
    // While no interrupt service runs, the deadline passes.
    await platform.dataSource.query(
      `UPDATE interrupts SET deadline_at = now() - interval '1 second' WHERE interrupt_id = 'restart:gate:0'`,
    );
    app = await NestFactory.createApplicationContext(rootModule(platform, [InterruptModule]), {
      logger: ['error'],
    });
    await app.init();
    const resume = await waitFor(() => engineCommandsOf('restart', 'run.resume')[0], {
      timeoutMs: 5_000,
      what: 'the timeout resume after restart',
    });
    expect(resume.data).toMatchObject({ outcome: 'timeout', interruptId: 'restart:gate:0' });
  });
});
