import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import {
  Topics,
  type CommandEnvelope,
  type CommandReply,
  type EngineCommand,
  type OpenInterruptCommand,
  type RunEventDoc,
  type WorkflowDefinition,
} from '@openwop/contracts';
import { forkSourceOf, type RunRecord } from '@openwop/engine-domain';
import { InProcessBus } from '@openwop/platform-bus';
import { InProcessRunEventFeed, openDatabase, OutboxRelay } from '@openwop/platform-db';
import { readHostConfig, rootModule, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { EngineModule } from './engine.module';

/**
 * The engine against a real Postgres and the in-process bus. The outbox relay is held back until a
 * test lets it go, so the outbox rows a command committed can be read in commit order.
 */
describe('engine (Postgres, in-process bus)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let bus: InProcessBus;
  let app: INestApplicationContext;
  let seedDir: string;
  let realRelay: OutboxRelay;
  const relayGate = { open: false };
  const published: { topic: string; value: unknown }[] = [];
  let seq = 0;

  const actor = { tenant: 't1', principal: 'alice' };
  const envelope = <T extends EngineCommand>(
    type: T['type'],
    data: T['data'],
    id = `cmd-${++seq}`,
    a = actor,
  ): T => ({ id, type, occurredAt: new Date().toISOString(), correlationId: id, actor: a, data }) as T;
  const send = <R = unknown>(command: CommandEnvelope): Promise<CommandReply<R>> =>
    bus.request<CommandReply<R>>(Topics.engineCommands, { key: 'k', value: command }, { timeoutMs: 10_000 });
  const outbox = async () =>
    (
      await ds.query<{ topic: string; value: { type: string; sequence?: number } }[]>(
        'SELECT topic, value FROM outbox ORDER BY id',
      )
    ).map((r) => r.value);
  const runState = async (runId: string) =>
    (await ds.query<{ state: RunRecord }[]>('SELECT state FROM engine_runs WHERE run_id = $1', [runId]))[0]
      ?.state;
  const eventsOf = (runId: string) =>
    published
      .filter((m) => m.topic === Topics.runEvents)
      .map((m) => m.value as RunEventDoc)
      .filter((e) => e.runId === runId);

  beforeAll(async () => {
    db = await createTestDatabase('engine');
    seedDir = await mkdtemp(join(tmpdir(), 'engine-seed-'));
    await writeFile(
      join(seedDir, 'seeded.yaml'),
      [
        'id: seeded-yaml',
        'name: Seeded from YAML',
        'version: "1"',
        'nodes:',
        '  - { id: a, typeId: core.noop, name: A, position: { x: 0, y: 0 }, config: {}, inputs: {} }',
        'edges: []',
        'triggers: [{ id: manual, type: manual }]',
        'variables: []',
        'metadata: {}',
        'settings: {}',
      ].join('\n'),
    );
    process.env.WORKFLOWS_DIR = seedDir;
    const config = readHostConfig('embedded', {
      DATABASE_URL: db.url,
      OPENWOP_DATA_DIR: 'memory',
      KAFKA_PARTITIONS: '4',
    });
    ds = await openDatabase({ url: db.url, poolSize: 5, applicationName: 'engine-int' });
    bus = new InProcessBus({ partitions: 4 });
    await bus.start();
    await bus.subscribe({
      group: 'capture',
      topics: [Topics.runEvents, Topics.interruptCommands],
      handler: async () => undefined,
    });
    const real = (realRelay = new OutboxRelay(ds, async (topic, messages) => {
      for (const m of messages) published.push({ topic, value: m.value });
      await bus.publish(topic, messages);
    }));
    const relay = {
      kick: () => (relayGate.open ? real.kick() : Promise.resolve()),
      // Gate closed: commit without publishing, so the test can read what the outbox holds.
      transaction: <T>(work: (m: EntityManager) => Promise<T>) =>
        relayGate.open ? real.transaction(work) : ds.transaction(work),
      start: () => undefined,
      stop: () => real.stop(),
    } as unknown as OutboxRelay;
    const platform: Platform = {
      config,
      bus,
      dataSource: ds,
      feed: new InProcessRunEventFeed(),
      relay,
      close: async () => undefined,
    };
    app = await NestFactory.createApplicationContext(rootModule(platform, [EngineModule]), { logger: false });
    await app.init();
  });

  afterAll(async () => {
    delete process.env.WORKFLOWS_DIR;
    await app?.close();
    await realRelay?.stop();
    await bus?.stop();
    await ds?.destroy();
    await db?.drop();
    await rm(seedDir, { recursive: true, force: true });
  });

  it('run.start of conformance-approval suspends the run; the outbox holds interrupt.open before the run events', async () => {
    const reply = await send(envelope('run.start', { runId: 'run-a', workflowId: 'conformance-approval' }));
    expect(reply).toEqual({
      ok: true,
      data: { runId: 'run-a', status: 'waiting-approval', lastSequence: 4 },
    });
    const state = await runState('run-a');
    expect(state).toMatchObject({
      status: 'suspended',
      pending: { interruptId: 'run-a:gate:0', key: 'run-a:gate:0', kind: 'approval' },
    });
    const rows = await outbox();
    expect(rows.map((r) => r.type)).toEqual([
      'interrupt.open',
      'run.started',
      'node.started',
      'interrupt.requested',
      'approval.requested',
      'node.suspended',
    ]);
    const open = rows[0] as unknown as OpenInterruptCommand;
    expect(open).toMatchObject({
      id: 'open:run-a:gate:0',
      type: 'interrupt.open',
      correlationId: 'run-a',
      actor: { tenant: 't1', principal: 'alice' },
      data: {
        runId: 'run-a',
        nodeId: 'gate',
        interruptId: 'run-a:gate:0',
        kind: 'approval',
        key: 'run-a:gate:0',
      },
    });
    relayGate.open = true;
    await realRelay.kick();
    await waitFor(async () => (await outbox()).length === 0 || undefined, { what: 'outbox drained' });
  });

  it('relays the interrupt command before the run events, and run.resume completes the run', async () => {
    await waitFor(() => eventsOf('run-a').length === 5 || undefined, { what: 'run-a events published' });
    const firstOpen = published.findIndex((m) => m.topic === Topics.interruptCommands);
    const firstEvent = published.findIndex((m) => m.topic === Topics.runEvents);
    expect(firstOpen).toBeLessThan(firstEvent);
    const resumeCmd = envelope('run.resume', {
      runId: 'run-a',
      nodeId: 'gate',
      interruptId: 'run-a:gate:0',
      key: 'run-a:gate:0',
      outcome: 'resolved',
      resumeValue: { action: 'accept' },
      resolvedBy: 'alice',
      resolvedAt: new Date().toISOString(),
    });
    const reply = await send(resumeCmd);
    expect(reply).toEqual({
      ok: true,
      data: { runId: 'run-a', resumed: true, status: 'completed', lastSequence: 9 },
    });
    expect(await runState('run-a')).toMatchObject({ status: 'completed' });
    await waitFor(() => eventsOf('run-a').length === 10 || undefined, {
      what: 'run-a resume events published',
    });
    expect(
      eventsOf('run-a')
        .slice(5)
        .map((e) => e.type),
    ).toEqual(['interrupt.resolved', 'approval.received', 'node.resumed', 'node.completed', 'run.completed']);
    expect(eventsOf('run-a').map((e) => e.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    // The same command again: the stored reply, nothing written.
    expect(await send(resumeCmd)).toEqual(reply);
    // Another resume of the same interrupt: ok, nothing resumed, nothing written.
    const again = await send(envelope('run.resume', { ...resumeCmd.data }));
    expect(again).toEqual({
      ok: true,
      data: { runId: 'run-a', resumed: false, status: 'completed', lastSequence: 9 },
    });
    expect((await runState('run-a'))?.lastSequence).toBe(9);
    expect(await outbox()).toEqual([]);
  });

  it('run.cancel cancels a suspended run; a terminal one is refused run_terminal and an unknown one not_found, writing nothing', async () => {
    await send(envelope('run.start', { runId: 'run-c', workflowId: 'conformance-clarification' }));
    expect(await send(envelope('run.cancel', { runId: 'run-c', reason: 'no longer needed' }))).toMatchObject({
      ok: true,
      data: { runId: 'run-c', status: 'cancelled' },
    });
    await waitFor(() => eventsOf('run-c').some((e) => e.type === 'run.cancelled') || undefined, {
      what: 'run-c cancelled',
    });
    expect(
      eventsOf('run-c')
        .slice(-2)
        .map((e) => e.type),
    ).toEqual(['node.cancelled', 'run.cancelled']);
    expect(await send(envelope('run.cancel', { runId: 'run-c' }))).toMatchObject({
      ok: false,
      error: { code: 'run_terminal' },
    });
    expect(await send(envelope('run.cancel', { runId: 'run-nope' }))).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await runState('run-nope')).toBeUndefined();
  });

  it('workflow.register validates and stores per tenant; workflow.get and run.start find tenant workflows first, then the global ones', async () => {
    const mine: WorkflowDefinition = {
      id: 'my-flow',
      name: 'Mine',
      version: '2',
      nodes: [
        { id: 'x', typeId: 'core.identity', name: 'X', position: { x: 0, y: 0 }, config: {}, inputs: {} },
      ],
      edges: [],
      triggers: [{ id: 'manual', type: 'manual' }],
      variables: [],
      metadata: {},
      settings: {},
    };
    expect(await send(envelope('workflow.register', { definition: { ...mine } }))).toEqual({
      ok: true,
      data: { workflowId: 'my-flow' },
    });
    expect(await send(envelope('workflow.get', { workflowId: 'my-flow' }))).toEqual({ ok: true, data: mine });
    const other = { tenant: 't2', principal: 'bob' };
    expect(await send(envelope('workflow.get', { workflowId: 'my-flow' }, 'get-other', other))).toMatchObject(
      { ok: false, error: { code: 'not_found' } },
    );
    expect(
      await send(envelope('workflow.get', { workflowId: 'conformance-noop' }, 'get-fixture', other)),
    ).toMatchObject({ ok: true, data: { id: 'conformance-noop' } });
    expect(await send(envelope('workflow.get', { workflowId: 'seeded-yaml' }))).toMatchObject({
      ok: true,
      data: { id: 'seeded-yaml' },
    });

    const bad = await send(
      envelope('workflow.register', {
        definition: { ...mine, nodes: [{ ...mine.nodes[0], typeId: 'vendor.nope' }] },
      }),
    );
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'validation_error', details: { field: '/nodes/0/typeId' } },
    });
    const missing = await send(envelope('workflow.register', { definition: { id: 'x' } }));
    expect(missing).toMatchObject({ ok: false, error: { code: 'validation_error' } });

    const started = await send(
      envelope('run.start', { runId: 'run-m', workflowId: 'my-flow', inputs: { payload: 7 } }),
    );
    expect(started).toMatchObject({ ok: true, data: { status: 'completed' } });
    await waitFor(() => eventsOf('run-m').some((e) => e.type === 'run.completed') || undefined, {
      what: 'run-m completed',
    });
    expect(eventsOf('run-m').find((e) => e.type === 'node.completed')?.payload).toMatchObject({
      outputs: { payload: 7 },
    });
    expect(await send(envelope('run.start', { runId: 'run-y', workflowId: 'seeded-yaml' }))).toMatchObject({
      ok: true,
      data: { status: 'completed' },
    });
    expect(
      await send(envelope('run.start', { runId: 'run-z', workflowId: 'my-flow' }, 'z', other)),
    ).toMatchObject({
      ok: false,
      error: { code: 'workflow_not_found' },
    });
  });

  it('run.fork is answered from the log the engine keeps: the new shape, the shape of the previous release, and a log an older engine left partly to the projection', async () => {
    const ownLog = async (runId: string) =>
      (
        await ds.query<{ event: RunEventDoc }[]>(
          'SELECT event FROM engine_run_events WHERE run_id = $1 ORDER BY sequence',
          [runId],
        )
      ).map((r) => r.event);
    // The engine keeps every event it decided, as published.
    await waitFor(() => eventsOf('run-a').length === 10 || undefined, { what: 'run-a published' });
    expect(await ownLog('run-a')).toEqual(eventsOf('run-a'));
    const forkTypes = async (runId: string) => (await ownLog(runId)).map((e) => e.type);

    // run-a answered an approval: a replay reuses that answer, which needs approvals:respond (ADR 0008).
    expect(
      await send(
        envelope('run.fork', { runId: 'fork-unapproved', sourceRunId: 'run-a', mode: 'replay', fromSeq: 0 }),
      ),
    ).toMatchObject({
      ok: false,
      error: { code: 'forbidden', details: { scopeRequired: 'approvals:respond', sourceRunId: 'run-a' } },
    });
    expect(await runState('fork-unapproved')).toBeUndefined();
    const replay = await send<{ runId: string; status: string }>(
      envelope('run.fork', {
        runId: 'fork-new',
        sourceRunId: 'run-a',
        mode: 'replay',
        fromSeq: 0,
        callerMayResolve: true,
      }),
    );
    expect(replay).toMatchObject({ ok: true, data: { runId: 'fork-new', status: 'completed' } });
    const replayed = await ownLog('fork-new');
    expect(replayed[0]?.payload).toMatchObject({
      forkedFrom: { runId: 'run-a', fromSeq: 0, mode: 'replay' },
    });
    expect(replayed.map((e) => e.type)).not.toContain('replay.diverged');

    // A branch lays its overlay over the source's metadata.
    const branch = await send(
      envelope('run.fork', {
        runId: 'fork-branch',
        sourceRunId: 'run-a',
        mode: 'branch',
        fromSeq: 2,
        overlay: { tags: ['b'] },
        callerMayResolve: true,
      }),
    );
    expect(branch).toMatchObject({ ok: true });
    expect((await ownLog('fork-branch'))[0]?.payload).toMatchObject({ metadata: { tags: ['b'] } });

    // The previous release's command (the log inside it) is still decided from its fields.
    const log = eventsOf('run-a');
    // (The previous release's fields: what the fork reuses is this release's reckoning, not a field.)
    const { started, reusedInterrupts, ...split } = forkSourceOf(log, 0, 'replay');
    expect(reusedInterrupts.length).toBeGreaterThan(0);
    const legacy = await send(
      envelope('run.fork', {
        runId: 'fork-legacy',
        sourceRunId: 'run-a',
        mode: 'replay',
        fromSeq: 0,
        callerMayResolve: true,
        ...started,
        ...split,
      }),
    );
    expect(legacy).toMatchObject({ ok: true, data: { runId: 'fork-legacy', status: 'completed' } });
    expect(await forkTypes('fork-legacy')).toEqual(await forkTypes('fork-new'));

    // Refusals write nothing: another tenant's source reads as absent, a fromSeq past the log is 422's code.
    const other = { tenant: 't2', principal: 'mallory' };
    expect(
      await send(
        envelope(
          'run.fork',
          { runId: 'fork-x', sourceRunId: 'run-a', mode: 'replay', fromSeq: 0 },
          'fx',
          other,
        ),
      ),
    ).toEqual({ ok: false, error: { code: 'not_found', message: 'Run run-a not found.' } });
    expect(
      await send(
        envelope('run.fork', { runId: 'fork-y', sourceRunId: 'run-a', mode: 'replay', fromSeq: 10 }),
      ),
    ).toEqual({
      ok: false,
      error: {
        code: 'sequence_not_found',
        message: 'Run run-a has no event at sequence 10 (its log holds 0..9).',
        details: { sourceRunId: 'run-a', fromSeq: 10, lastSequence: 9 },
      },
    });
    expect(await runState('fork-x')).toBeUndefined();
    expect(await runState('fork-y')).toBeUndefined();

    // Rolling upgrade: events an engine of the previous release wrote after the migration live only in the projection.
    for (const e of log.filter((x) => x.sequence >= 5)) {
      await ds.query(
        'INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
        [e.eventId, e.runId, e.sequence, e.type, e.nodeId ?? null, JSON.stringify(e)],
      );
    }
    await ds.query('DELETE FROM engine_run_events WHERE run_id = $1 AND sequence >= 5', ['run-a']);
    expect(
      await send(
        envelope('run.fork', {
          runId: 'fork-bridged',
          sourceRunId: 'run-a',
          mode: 'replay',
          fromSeq: 0,
          callerMayResolve: true,
        }),
      ),
    ).toMatchObject({ ok: true, data: { status: 'completed' } });
    expect(await forkTypes('fork-bridged')).toEqual(await forkTypes('fork-new'));
  });
});
