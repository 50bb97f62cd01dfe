import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Topics, type CommandEnvelope, type CommandReply, type RunEventDoc } from '@openwop/contracts';
import { EngineModule } from '@openwop/engine';
import { InterruptModule } from '@openwop/interrupt';
import type { IncomingMessage } from '@openwop/platform-bus';
import { PROJECTED_IN_DECISION } from '@openwop/platform-db';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { ProjectorModule } from '@openwop/projector';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';

// The one-process host (embedded mode, on a Postgres server) with the engine, the interrupt service
// and the projector: the engine's deciding transaction applies the projector's code to the events
// it appends (ADR 0039), so the run's snapshot, its event list and its pending interrupts commit
// with the decision. Rows written by one transaction carry its id (`xmin`), so the test reads, right
// after the answer and without waiting for the bus, that they are there and were written by the
// decision's transaction. A projection that fails in the decision does not lose the decision.

let db: TestDatabase;
let platform: Platform;
let app: INestApplicationContext;
const captured: IncomingMessage[] = [];
const actor = { tenant: 't1', principal: 'alice' };

const envelope = (type: string, data: Record<string, unknown>): CommandEnvelope => ({
  id: randomUUID(),
  type,
  occurredAt: new Date().toISOString(),
  correlationId: randomUUID(),
  actor,
  data,
});
const send = (topic: string, runId: string, command: CommandEnvelope) =>
  platform.bus.request<CommandReply<{ lastSequence?: number; status?: string }>>(
    topic,
    { key: runId, value: command },
    { timeoutMs: 15_000 },
  );
const start = (runId: string) =>
  send(Topics.engineCommands, runId, envelope('run.start', { runId, workflowId: 'conformance-approval' }));
const accept = (runId: string) =>
  send(
    Topics.interruptCommands,
    runId,
    envelope('interrupt.resolve', { runId, nodeId: 'gate', resumeValue: { action: 'accept' }, via: 'api' }),
  );

/** The projection's rows of `runId` and the engine's, each with the id of the transaction that wrote it. */
async function rowsOf(runId: string) {
  const [row] = await platform.dataSource.query<
    {
      status: string | null;
      last_sequence: number | null;
      projection_error: { eventId: string } | null;
      runs_xid: string | null;
      engine_status: string;
      engine_xid: string;
      event_xids: string[] | null;
      sequences: number[] | null;
      pending_xids: string[] | null;
    }[]
  >(
    `SELECT r.status, r.last_sequence, r.projection_error, r.xmin::text AS runs_xid,
       e.state->>'status' AS engine_status, e.xmin::text AS engine_xid,
       (SELECT array_agg(DISTINCT xmin::text) FROM run_events WHERE run_id = $1) AS event_xids,
       (SELECT array_agg(sequence ORDER BY sequence) FROM run_events WHERE run_id = $1) AS sequences,
       (SELECT array_agg(xmin::text) FROM pending_interrupts WHERE run_id = $1) AS pending_xids
     FROM engine_runs e LEFT JOIN runs r USING (run_id) WHERE e.run_id = $1`,
    [runId],
  );
  return row;
}

/** The run events of `runId` the bus carried, with the mark of a projection in the decision. */
const busEvents = (runId: string) =>
  captured
    .map((m) => ({ event: m.value as RunEventDoc, marked: m.headers[PROJECTED_IN_DECISION] === '1' }))
    .filter((e) => e.event.runId === runId)
    .sort((a, b) => a.event.sequence - b.event.sequence);

beforeAll(async () => {
  db = await createTestDatabase('decision_projection');
  platform = await startPlatform(
    readHostConfig('embedded', { DATABASE_URL: db.url, OPENWOP_DATA_DIR: 'memory', KAFKA_PARTITIONS: '2' }),
  );
  await platform.bus.subscribe({
    group: 'it-capture',
    topics: [Topics.runEvents],
    handler: async (m) => {
      captured.push(m);
    },
  });
  app = await NestFactory.createApplicationContext(
    rootModule(platform, [EngineModule, ProjectorModule, InterruptModule]),
    { logger: ['error'] },
  );
  await app.init();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await db?.drop();
}, 60_000);

it('the start and the resolve commit the run snapshot, its events and its pending interrupt in the deciding transaction', async () => {
  const runId = `same-commit-${randomUUID()}`;
  const started = await start(runId);
  expect(started).toMatchObject({ ok: true, data: { status: 'waiting-approval' } });
  // Read right after the answer, without waiting: written by the decision's own transaction.
  const waiting = await rowsOf(runId);
  expect(waiting).toMatchObject({
    status: 'waiting-approval',
    last_sequence: started.ok ? started.data.lastSequence : -1,
  });
  expect(waiting!.runs_xid).toBe(waiting!.engine_xid);
  expect(waiting!.event_xids).toEqual([waiting!.engine_xid]);
  expect(waiting!.pending_xids).toEqual([waiting!.engine_xid]);

  expect(await accept(runId)).toMatchObject({ ok: true });
  const done = await waitFor(
    async () => {
      const rows = await rowsOf(runId);
      return rows?.engine_status === 'completed' ? rows : undefined;
    },
    { timeoutMs: 15_000, what: 'the run completed' },
  );
  // The resume's decision moved the snapshot and cleared the pending interrupt in its transaction.
  expect(done).toMatchObject({ status: 'completed', pending_xids: null });
  expect(done.runs_xid).toBe(done.engine_xid);
  expect(done.sequences).toEqual([...Array(done.last_sequence! + 1).keys()]);

  // On the bus, every event says it was projected: the projector's consumer only tells readers.
  const onBus = await waitFor(
    () => {
      const events = busEvents(runId);
      return events.length === done.last_sequence! + 1 ? events : undefined;
    },
    { timeoutMs: 15_000, what: 'the run events on the bus' },
  );
  expect(onBus.every((e) => e.marked)).toBe(true);
}, 60_000);

it('a projection that fails in the decision does not fail it: the decision commits, the consumer marks the run broken', async () => {
  const runId = `poisoned-${randomUUID()}`;
  const started = await start(runId);
  expect(started).toMatchObject({ ok: true, data: { status: 'waiting-approval' } });
  const waitingAt = started.ok ? started.data.lastSequence! : -1;
  // From now on no event of this run can be stored (stands for any value a column cannot hold).
  await platform.dataSource.query(
    `ALTER TABLE run_events ADD CONSTRAINT it_refuses_poisoned CHECK (NOT (run_id = '${runId}' AND sequence > ${waitingAt}))`,
  );
  try {
    expect(await accept(runId)).toMatchObject({ ok: true });
    // The decision stands: the engine completed the run.
    await waitFor(async () => ((await rowsOf(runId))?.engine_status === 'completed' ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the engine to complete the run',
    });
    // Its events went to the projector's consumer unmarked, which could not store them either and
    // marked the run's projection broken at the first of them (as for any event it cannot store).
    const broken = await waitFor(
      async () => {
        const rows = await rowsOf(runId);
        return rows?.projection_error ? rows : undefined;
      },
      { timeoutMs: 30_000, what: 'the run marked broken' },
    );
    expect(broken.projection_error!.eventId).toBe(`${runId}:${waitingAt + 1}`);
    expect(broken).toMatchObject({ status: 'waiting-approval', last_sequence: waitingAt });
    const later = busEvents(runId).filter((e) => e.event.sequence > waitingAt);
    expect(later.length).toBeGreaterThan(0);
    expect(later.some((e) => e.marked)).toBe(false);
    expect(
      busEvents(runId)
        .filter((e) => e.event.sequence <= waitingAt)
        .every((e) => e.marked),
    ).toBe(true);
  } finally {
    await platform.dataSource.query('ALTER TABLE run_events DROP CONSTRAINT it_refuses_poisoned');
  }
}, 60_000);
