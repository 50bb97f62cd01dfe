import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { Topics, type RunEventDoc } from '@openwop/contracts';
import { openDatabase } from '@openwop/platform-db';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { ProjectorModule } from '../projector.module';
import { compareProjections, rebuildProjections } from './rebuild-projections';

// The batched rebuild against the live projector over one log (a fresh namespace, one partition,
// real Kafka and Postgres): approvals answered, pending, rejected and cancelled; a conversation;
// a parent and its child run; redelivered events; and a run whose event neither database can store
// (a check constraint on both refuses it), so the run is marked broken and its later events held
// (ADR 0019). Rebuilt in batches of a few events (runs span batches, a batch falls back to the
// live path for the broken run) and in one large batch, both equal the live tables row by row.

let live: TestDatabase;
let platform: Platform;
let app: INestApplicationContext;
const targets: TestDatabase[] = [];
const namespace = `it-rebuild-${randomUUID().slice(0, 8)}`;
const POISON = `ALTER TABLE run_events ADD CONSTRAINT it_refuses_poison CHECK (NOT (doc->'payload'->'outputs' ? 'poison'))`;

let clock = 0;
class Run {
  readonly events: RunEventDoc[] = [];
  constructor(readonly runId: string) {}
  emit(type: RunEventDoc['type'], payload: Record<string, unknown> = {}, nodeId?: string): this {
    const sequence = this.events.length;
    this.events.push({
      eventId: `${this.runId}:${sequence}`,
      runId: this.runId,
      type,
      payload,
      sequence,
      timestamp: new Date(Date.UTC(2026, 10, 25, 0, 0, 0, clock++)).toISOString(),
      ...(nodeId ? { nodeId } : {}),
    });
    return this;
  }
  start(workflowId = 'wf', extra: Record<string, unknown> = {}): this {
    return this.emit('run.started', {
      workflowId,
      inputs: { n: 1 },
      owner: { tenant: 't1', principal: 'p' },
      ...extra,
    });
  }
  node(nodeId: string, outputs: Record<string, unknown> = {}): this {
    return this.emit('node.started', { nodeId, typeId: 'core.noop' }, nodeId).emit(
      'node.completed',
      { nodeId, outputs },
      nodeId,
    );
  }
  ask(nodeId: string, n: number, kind: 'approval' | 'clarification' = 'approval'): this {
    const interruptId = `${this.runId}:${nodeId}:${n}`;
    return this.emit(
      'interrupt.requested',
      { nodeId, interruptId, kind, key: interruptId, data: { title: 'ok?' }, timeoutMs: 1e15 },
      nodeId,
    ).emit('node.suspended', { nodeId, interruptId, kind, key: interruptId }, nodeId);
  }
  answer(nodeId: string, n: number): this {
    const interruptId = `${this.runId}:${nodeId}:${n}`;
    return this.emit('interrupt.resolved', { nodeId, interruptId, outcome: 'resolved' }, nodeId).emit(
      'node.resumed',
      { nodeId, interruptId },
      nodeId,
    );
  }
}

/** Interleaves the runs' events (round robin, a few at a time), as concurrent runs share a partition. */
function interleave(runs: readonly Run[]): RunEventDoc[] {
  const out: RunEventDoc[] = [];
  const at = runs.map(() => 0);
  for (let step = 0; out.length < runs.reduce((s, r) => s + r.events.length, 0); step++) {
    const i = step % runs.length;
    const take = 1 + (step % 3);
    out.push(...runs[i]!.events.slice(at[i], at[i]! + take));
    at[i] = Math.min(at[i]! + take, runs[i]!.events.length);
  }
  return out;
}

function log(): { events: RunEventDoc[]; broken: string } {
  const id = () => randomUUID();
  const approved = new Run(`approved-${id()}`)
    .start()
    .node('a')
    .ask('gate', 0)
    .answer('gate', 0)
    .ask('gate', 1)
    .answer('gate', 1);
  approved.node('b').emit('run.completed', { outputs: { ok: true } });
  const waiting = new Run(`waiting-${id()}`).start().node('a').ask('gate', 0, 'clarification');
  const cancelled = new Run(`cancelled-${id()}`)
    .start()
    .ask('gate', 0)
    .emit('run.cancelled', { reason: 'operator' });
  const rejected = new Run(`rejected-${id()}`).start().ask('gate', 0).answer('gate', 0);
  rejected.emit(
    'node.failed',
    { nodeId: 'gate', error: { code: 'approval_rejected', message: 'no' } },
    'gate',
  );
  rejected.emit('run.failed', { error: { code: 'approval_rejected', message: 'no', retryable: false } });
  const chat = new Run(`chat-${id()}`).start('wf-chat').emit('node.started', { nodeId: 'chat' }, 'chat');
  const conversationId = `${chat.runId}:chat:0`;
  const turn = (i: number, role: string) => ({
    messageId: `${conversationId}:${i}`,
    from: role,
    content: `turn ${i}`,
    ts: 1e300,
    role,
    turnIndex: i,
  });
  chat.emit(
    'conversation.opened',
    { conversationId, participants: [{ agentId: 'host:a' }], initialTurn: turn(0, 'system') },
    'chat',
  );
  for (let i = 1; i <= 6; i++)
    chat.emit(
      'conversation.exchanged',
      { conversationId, turnIndex: i, turn: turn(i, i % 2 ? 'agent' : 'user') },
      'chat',
    );
  chat.emit('conversation.exchanged', { conversationId, turnIndex: 3, turn: turn(3, 'agent') }, 'chat'); // a turn recorded twice
  chat.emit('conversation.closed', { conversationId, turnIndex: 7, finalTurn: turn(7, 'user') }, 'chat'); // outcome null (a timeout)
  chat.emit('run.completed', { outputs: {} });
  const parent = new Run(`parent-${id()}`).start('parent');
  const child = new Run(`${parent.runId}-child`)
    .start('child', { parentRunId: parent.runId, parentNodeId: 'sub' })
    .node('w');
  child.emit('run.completed', { outputs: {} });
  parent.emit('node.dispatched', { nodeId: 'sub', childRunId: child.runId, childWorkflowId: 'child' }, 'sub');
  parent.emit('log.appended', {
    level: 'info',
    message: 'ended',
    fields: { event: 'child.ended', childRunId: child.runId, status: 'completed' },
  });
  parent.emit('run.completed', { outputs: {} });
  const broken = new Run(`broken-${id()}`)
    .start()
    .node('a')
    .node('b', { poison: true })
    .node('c')
    .ask('gate', 0);
  const events = interleave([approved, waiting, cancelled, rejected, chat, parent, child, broken]);
  // Redeliveries (the outbox publishes at least once): events already in the log, again, later.
  events.push(approved.events[3]!, approved.events[4]!, chat.events[5]!);
  return { events, broken: broken.runId };
}

const publish = (events: readonly RunEventDoc[]) =>
  platform.bus.publish(
    Topics.runEvents,
    events.map((e) => ({ key: e.runId, value: e })),
  );

async function freshTarget(): Promise<DataSource> {
  const db = await createTestDatabase('projector_rebuild');
  targets.push(db);
  const ds = await openDatabase({ url: db.url, applicationName: 'it-rebuild' });
  await ds.query(POISON);
  return ds;
}

beforeAll(async () => {
  live = await createTestDatabase('projector_rebuild_live');
  platform = await startPlatform(
    readHostConfig('distributed', {
      DATABASE_URL: live.url,
      OPENWOP_NAMESPACE: namespace,
      KAFKA_PARTITIONS: '1',
    }),
  );
  await platform.dataSource.query(POISON);
  app = await NestFactory.createApplicationContext(rootModule(platform, [ProjectorModule]), {
    logger: ['error'],
  });
  await app.init();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await live?.drop();
  for (const t of targets) await t.drop();
});

it('rebuilds the log in batches equal to the live projection, row by row, a broken run held as live', async () => {
  const { events, broken } = log();
  await publish(events);
  const sentinel = new Run(`sentinel-${randomUUID()}`).start();
  await publish(sentinel.events);
  const runRow = async (runId: string) =>
    (
      await platform.dataSource.query<{ last_sequence: number; projection_error: unknown }[]>(
        'SELECT last_sequence, projection_error FROM runs WHERE run_id = $1',
        [runId],
      )
    )[0];
  // One partition: once the sentinel is projected, every event before it was handled.
  await waitFor(async () => ((await runRow(sentinel.runId)) ? true : undefined), {
    timeoutMs: 60_000,
    what: 'the live projection',
  });
  expect(await runRow(broken)).toMatchObject({ last_sequence: 3, projection_error: { sequence: 4 } });

  for (const [batchSize, writers] of [
    [5, 1],
    [5, 2],
    [10_000, 2],
  ] as const) {
    const target = await freshTarget();
    const result = await rebuildProjections([...platform.config.kafkaBrokers], target, namespace, {
      batchSize,
      writers,
    });
    expect(result.events).toBe(events.length + 1);
    expect(result.broken).toBe(1);
    expect(result.held).toBe(4); // node c (2 events), the gate's request and suspension
    expect(result.applied).toBe(events.length + 1 - 3 - 1 - 4); // redeliveries, the refused event, held ones
    expect(await compareProjections(platform.dataSource, target)).toEqual([]);
    const [row] = await target.query<
      { last_sequence: number; projection_error: { eventId: string; reason: string } }[]
    >('SELECT last_sequence, projection_error FROM runs WHERE run_id = $1', [broken]);
    expect(row).toMatchObject({
      last_sequence: 3,
      projection_error: { eventId: `${broken}:4`, reason: expect.stringContaining('it_refuses_poison') },
    });
    // The readers' indexes dropped for the load are back.
    const indexes = await target.query<{ indexname: string }[]>(
      `SELECT indexname FROM pg_indexes WHERE indexname IN ('runs_tenant_created', 'pending_interrupts_tenant_requested', 'conversations_run')`,
    );
    expect(indexes).toHaveLength(3);
    await target.destroy();
  }
}, 120_000);

it('replayed again into the same tables (not fresh: rows are read back), stores nothing twice', async () => {
  const target = await freshTarget();
  const first = await rebuildProjections([...platform.config.kafkaBrokers], target, namespace, {
    batchSize: 7,
  });
  const again = await rebuildProjections([...platform.config.kafkaBrokers], target, namespace, {
    batchSize: 7,
  });
  expect(again.events).toBe(first.events);
  expect(again.applied).toBe(0);
  expect(again.broken).toBe(0); // already marked: its events are held
  expect(await compareProjections(platform.dataSource, target)).toEqual([]);
  // Every run document carries the era key (v1: 2), live and rebuilt alike.
  for (const db of [platform.dataSource, target]) {
    const eras = await db.query<{ era: string | null; n: string }[]>(
      "SELECT snapshot->>'eventLogSchemaVersion' AS era, count(*)::text AS n FROM runs GROUP BY 1",
    );
    expect(eras.map((r) => r.era)).toEqual(['2']);
  }
  await target.destroy();
}, 60_000);

it('compares rows, not only counts: a changed snapshot in the rebuilt tables is reported', async () => {
  const target = await freshTarget();
  await rebuildProjections([...platform.config.kafkaBrokers], target, namespace);
  expect(await compareProjections(platform.dataSource, target)).toEqual([]);
  await target.query(
    `UPDATE runs SET snapshot = jsonb_set(snapshot, '{status}', '"completed"') WHERE run_id LIKE 'waiting-%'`,
  );
  expect(await compareProjections(platform.dataSource, target)).toEqual(['runs']);
  await target.destroy();
}, 60_000);
