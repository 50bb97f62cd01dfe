import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { Topics, type RunEventDoc } from '@openwop/contracts';
import { isTransientDatabaseFailure } from '@openwop/platform-db';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { ProjectorModule } from './projector.module';
import { PROJECTION_ATTEMPTS, RunEventsConsumer } from './run-events.consumer';
import { noopRun } from './run-event-docs.spec';

// The projector over the real platform in distributed mode while its database refuses it. The
// platform connects as a role of its own (superusers pass every connection limit); the outage is
// that role's connection limit set to 0 and its backends terminated, so every statement fails with
// "terminating connection" (57P01) or, on reconnecting, "too many connections for role" (53300),
// until the limit is lifted. Such failures are the database's, not the events': no run may be
// marked broken (`projectionError`) and no event dead-lettered; the partition waits and catches up.
// An event that truly cannot be stored (a check constraint the test adds refuses it) still marks
// its run, right after the outage as at any time.

const SERVER = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let db: TestDatabase;
/** The superuser on the server's own database: the role, its limit, its backends. */
let server: Client;
/** The superuser on the test database: reads the read model whatever the role's limit. */
let admin: Client;
let platform: Platform;
let app: INestApplicationContext;
const role = `test_proj_outage_${randomBytes(4).toString('hex')}`;
const password = randomBytes(12).toString('hex');
const namespace = `it-outage-${randomUUID().slice(0, 8)}`;

const publish = (events: readonly RunEventDoc[]) =>
  platform.bus.publish(
    Topics.runEvents,
    events.map((e) => ({ key: e.runId, value: e })),
  );

/** Read as the superuser, which the outage does not refuse. */
async function runRow(runId: string) {
  const { rows } = await admin.query<{
    status: string;
    last_sequence: number;
    projection_error: Record<string, unknown> | null;
  }>('SELECT status, last_sequence, projection_error FROM runs WHERE run_id = $1', [runId]);
  return rows[0];
}
const stored = async (runId: string) =>
  (
    await admin.query<{ sequence: number }>(
      'SELECT sequence FROM run_events WHERE run_id = $1 ORDER BY sequence',
      [runId],
    )
  ).rows.map((r) => r.sequence);
const roleBackends = async () =>
  Number(
    (
      await server.query<{ n: string }>(
        'SELECT count(*)::text AS n FROM pg_stat_activity WHERE usename = $1',
        [role],
      )
    ).rows[0]!.n,
  );
const codeOf = (error: unknown): unknown => {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { driverError?: unknown }).driverError ?? e.cause;
  }
  return undefined;
};

beforeAll(async () => {
  db = await createTestDatabase('projector_outage');
  server = new Client({ connectionString: SERVER });
  await server.connect();
  await server.query(`CREATE ROLE "${role}" LOGIN PASSWORD '${password}'`);
  await server.query(`ALTER DATABASE "${db.name}" OWNER TO "${role}"`);
  admin = new Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`GRANT ALL ON SCHEMA public TO "${role}"`);
  const url = new URL(db.url);
  url.username = role;
  url.password = password;
  platform = await startPlatform(
    readHostConfig('distributed', {
      DATABASE_URL: url.toString(),
      DATABASE_POOL_SIZE: '4',
      OPENWOP_NAMESPACE: namespace,
      KAFKA_PARTITIONS: '1',
    }),
  );
  // Stands for any value a column cannot hold: a failure of the event, not of the database.
  await admin.query(
    `ALTER TABLE run_events ADD CONSTRAINT it_refuses_poison CHECK (NOT (doc->'payload'->'outputs' ? 'poison'))`,
  );
  app = await NestFactory.createApplicationContext(rootModule(platform, [ProjectorModule]), {
    logger: ['error'],
  });
  await app.init();
}, 60_000);

afterAll(async () => {
  await server?.query(`ALTER ROLE "${role}" CONNECTION LIMIT -1`);
  await app?.close();
  await platform?.close();
  await admin?.end();
  await db?.drop();
  await server?.query(`DROP ROLE IF EXISTS "${role}"`);
  await server?.end();
}, 60_000);

it('while the database refuses the projector, no run is marked broken; it catches up once the database is back; a bad event still marks its run', async () => {
  const consumer = app.get(RunEventsConsumer);
  const waiting = `waiting-${randomUUID()}`;
  const poisoned = `poisoned-${randomUUID()}`;
  await publish(noopRun(waiting).slice(0, 2));
  await waitFor(async () => ((await stored(waiting)).length === 2 ? true : undefined), {
    timeoutMs: 30_000,
    what: 'the first two events stored',
  });

  // Every attempt at the events, batch or one by one, as the bus makes it (the spy only listens).
  const failures: unknown[] = [];
  const handleBatch = consumer.handleBatch.bind(consumer);
  jest.spyOn(consumer, 'handleBatch').mockImplementation(async (messages) => {
    try {
      await handleBatch(messages);
    } catch (error) {
      failures.push(error);
      throw error;
    }
  });

  // The outage: no new connection for the role, and the ones it has are cut.
  await server.query(`ALTER ROLE "${role}" CONNECTION LIMIT 0`);
  await server.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
  await waitFor(async () => ((await roleBackends()) === 0 ? true : undefined), {
    timeoutMs: 10_000,
    what: "the role's backends gone",
  });
  await publish([...noopRun(waiting).slice(2), ...noopRun(poisoned, true)]);
  // More failed attempts than the bus would make (PROJECTION_ATTEMPTS + 2) before dead-lettering
  // an event whose failures counted, at least one of them the refusal of a new connection.
  await waitFor(
    () => failures.length > 2 * (PROJECTION_ATTEMPTS + 2) && failures.some((e) => codeOf(e) === '53300'),
    {
      timeoutMs: 60_000,
      what: 'the projector refused by the database, again and again',
    },
  );
  expect(failures.filter((e) => !isTransientDatabaseFailure(e)).map(String)).toEqual([]);
  expect(await runRow(waiting)).toMatchObject({ last_sequence: 1, projection_error: null });
  expect(await runRow(poisoned)).toBeUndefined();

  // The database is back: the waiting run catches up, whole and unmarked.
  await server.query(`ALTER ROLE "${role}" CONNECTION LIMIT -1`);
  await waitFor(async () => ((await runRow(waiting))?.status === 'completed' ? true : undefined), {
    timeoutMs: 30_000,
    what: 'the waiting run projected to its end',
  });
  expect(await stored(waiting)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(await runRow(waiting)).toMatchObject({ last_sequence: 7, projection_error: null });

  // The event that cannot be stored, published during the outage, marks its run once the
  // database answers, with its own reason (not the outage's); its later events are held.
  const marked = await waitFor(
    async () => {
      const row = await runRow(poisoned);
      return row?.projection_error ? row : undefined;
    },
    { timeoutMs: 30_000, what: 'the poisoned run marked broken' },
  );
  expect(marked.projection_error).toMatchObject({
    eventId: `${poisoned}:4`,
    sequence: 4,
    reason: expect.stringContaining('it_refuses_poison'),
  });
  expect(await stored(poisoned)).toEqual([0, 1, 2, 3]);
}, 120_000);
