import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Topics, type RunEventDoc } from '@openwop/contracts';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { ProjectorModule } from './projector.module';
import { repairBrokenRuns } from './rebuild/rebuild-projections';
import { noopRun } from './run-event-docs.spec';

// The projector over the real platform in distributed mode: a Kafka topic of its own (a fresh
// namespace) and a fresh Postgres database. An event the projector cannot store (a check constraint
// the test adds refuses it) must never be skipped silently: its run is marked broken, later events
// of the run are held (the read model never forks from the log), other runs go on, and the repair
// replay brings the run up to the log once the cause is gone.

let db: TestDatabase;
let platform: Platform;
let app: INestApplicationContext;
const namespace = `it-proj-${randomUUID().slice(0, 8)}`;

const publish = (events: readonly RunEventDoc[]) =>
  platform.bus.publish(
    Topics.runEvents,
    events.map((e) => ({ key: e.runId, value: e })),
  );

async function runRow(runId: string) {
  const rows = await platform.dataSource.query<
    {
      status: string;
      last_sequence: number;
      projection_error: Record<string, unknown> | null;
      snapshot: Record<string, unknown>;
    }[]
  >('SELECT status, last_sequence, projection_error, snapshot FROM runs WHERE run_id = $1', [runId]);
  return rows[0];
}
const stored = async (runId: string) =>
  (
    await platform.dataSource.query<{ sequence: number }[]>(
      'SELECT sequence FROM run_events WHERE run_id = $1 ORDER BY sequence',
      [runId],
    )
  ).map((r) => r.sequence);

beforeAll(async () => {
  db = await createTestDatabase('projector_consumer');
  platform = await startPlatform(
    readHostConfig('distributed', {
      DATABASE_URL: db.url,
      OPENWOP_NAMESPACE: namespace,
      KAFKA_PARTITIONS: '1',
    }),
  );
  // Stands for any value a column cannot hold: the projector must not skip the event it comes in.
  await platform.dataSource.query(
    `ALTER TABLE run_events ADD CONSTRAINT it_refuses_poison CHECK (NOT (doc->'payload'->'outputs' ? 'poison'))`,
  );
  app = await NestFactory.createApplicationContext(rootModule(platform, [ProjectorModule]), {
    logger: ['error'],
  });
  await app.init();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await db?.drop();
});

it('an event it cannot store marks its run broken, holds the later ones, leaves other runs alone; the repair brings the run up to the log', async () => {
  const broken = `broken-${randomUUID()}`;
  const healthy = `healthy-${randomUUID()}`;
  const log = noopRun(broken, true);
  const sentinel = `sentinel-${randomUUID()}`;
  // One partition, interleaved: the failed batch falls back to one event at a time, and the
  // sentinel run, published last, is projected only after every event before it was handled.
  await publish([...log.slice(0, 4), ...noopRun(healthy)]);
  await publish(log.slice(4));
  await publish(noopRun(sentinel).slice(0, 1));

  const marked = await waitFor(
    async () => {
      const row = await runRow(broken);
      return row?.projection_error ? row : undefined;
    },
    { timeoutMs: 30_000, what: 'the run marked broken' },
  );
  expect(marked.projection_error).toMatchObject({
    eventId: `${broken}:4`,
    sequence: 4,
    type: 'node.completed',
    reason: expect.stringContaining('it_refuses_poison'),
  });
  // Shown with the run (GET /v1/runs/{id} answers the snapshot).
  expect(marked.snapshot.projectionError).toEqual(marked.projection_error);
  // The healthy run sharing the partition is fully projected.
  await waitFor(async () => ((await runRow(healthy))?.status === 'completed' ? true : undefined), {
    timeoutMs: 30_000,
    what: 'the healthy run completed',
  });
  expect(await stored(healthy)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  // The sentinel projected: the broken run's later events were handled before it, and held, not
  // applied: the broken run's read model stops at the last event it could store.
  await waitFor(async () => ((await runRow(sentinel)) ? true : undefined), {
    timeoutMs: 30_000,
    what: 'the sentinel run',
  });
  expect(await stored(broken)).toEqual([0, 1, 2, 3]);
  expect(await runRow(broken)).toMatchObject({ status: 'running', last_sequence: 3 });

  // The cause is fixed; the repair replays the log for the broken run and clears the mark.
  await platform.dataSource.query('ALTER TABLE run_events DROP CONSTRAINT it_refuses_poison');
  const result = await repairBrokenRuns([...platform.config.kafkaBrokers], platform.dataSource, namespace);
  expect(result.repaired).toEqual([broken]);
  expect(result.stillBroken).toEqual([]);
  expect(await stored(broken)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  const repaired = await runRow(broken);
  expect(repaired).toMatchObject({ status: 'completed', last_sequence: 7, projection_error: null });
  expect(repaired!.snapshot.projectionError).toBeUndefined();
}, 90_000);
