import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import { PeriodicVacuum, VACUUM_LOCK } from './periodic-vacuum';

/** 200 outbox rows of ~600 bytes in, then out: what the relay does with a burst of messages. */
const CHURN = [
  `INSERT INTO outbox (topic, key, value) SELECT 't', 'k' || i, jsonb_build_object('pad', repeat('x', 600)) FROM generate_series(1, 200) i`,
  'DELETE FROM outbox',
];

/**
 * PGlite has no autovacuum. Churn through the outbox of a migrated PGlite database, with the built
 * `PeriodicVacuum`, in a child Node process (PGlite cannot load in Jest's module sandbox), which
 * reports the outbox's heap sizes as JSON.
 */
const SCRIPT = `
const dist = ${JSON.stringify(join(__dirname, '../dist'))};
const { startEmbeddedPostgres } = require(dist + '/embedded-postgres.js');
const { openDatabase } = require(dist + '/data-source.js');
const { PeriodicVacuum } = require(dist + '/periodic-vacuum.js');
(async () => {
  const pg = await startEmbeddedPostgres(undefined);
  const ds = await openDatabase({ url: pg.url, exclusive: true, driverOptions: pg.driverOptions });
  const size = async () => Number((await ds.query("SELECT pg_relation_size('outbox') AS n"))[0].n);
  const churn = async () => { for (const sql of ${JSON.stringify(CHURN)}) await ds.query(sql); };
  const out = {};
  for (let i = 0; i < 20; i++) await churn();
  out.unvacuumed = await size();
  const vacuum = new PeriodicVacuum(ds, 20);
  let passes = 0;
  const pass = vacuum.pass.bind(vacuum);
  vacuum.pass = async () => { const done = await pass(); if (done) passes++; return done; };
  await vacuum.pass();
  out.afterOnePass = await size();
  // The same churn again, with the schedule running: each burst waits for a pass that began after it.
  vacuum.start();
  for (let i = 0; i < 20; i++) {
    const seen = passes;
    await churn();
    const end = Date.now() + 10000;
    while (passes <= seen + 1) {
      if (Date.now() > end) throw new Error('no vacuum pass within 10 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  await vacuum.stop();
  out.withSchedule = await size();
  // Seven intervals of churn after stop(): a schedule left running would vacuum in them.
  const stoppedAt = passes;
  for (const end = Date.now() + 140; Date.now() < end; ) await churn();
  out.passesAfterStop = passes - stoppedAt;
  // A table that grew from empty: a pass gives it column statistics (PGlite keeps no count of changes).
  await ds.query('CREATE TABLE stats_probe (tenant text)');
  await ds.query("INSERT INTO stats_probe SELECT 't' || (g % 3) FROM generate_series(1, 1000) g");
  const statsOf = async () => Number((await ds.query("SELECT count(*) AS n FROM pg_stats WHERE tablename = 'stats_probe'"))[0].n);
  out.statsBefore = await statsOf();
  await vacuum.pass();
  out.statsAfter = await statsOf();
  await ds.destroy();
  await pg.close();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('PeriodicVacuum on PGlite (no autovacuum)', () => {
  let seen: {
    unvacuumed: number;
    afterOnePass: number;
    withSchedule: number;
    passesAfterStop: number;
    statsBefore: number;
    statsAfter: number;
  };
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], {
      cwd: join(__dirname, '../../..'),
      timeout: 60_000,
    });
    seen = JSON.parse(stdout) as typeof seen;
  });

  it('without a vacuum, rows that were deleted keep their space: the heap only grows', () => {
    // 4,000 rows of ~600 bytes passed through an outbox that holds none of them now.
    expect(seen.unvacuumed).toBeGreaterThan(2_000_000);
  });

  it('a pass gives the space of deleted rows back', () => {
    expect(seen.afterOnePass).toBe(0);
  });

  it('on schedule, the same churn reuses the space instead of growing the heap', () => {
    expect(seen.withSchedule).toBeLessThan(seen.unvacuumed / 4);
  });

  it('stop() ends the schedule', () => {
    expect(seen.passesAfterStop).toBe(0);
  });

  it('a pass analyzes a table that grew since: the planner gets its column statistics', () => {
    expect(seen.statsBefore).toBe(0);
    expect(seen.statsAfter).toBeGreaterThan(0);
  });
});

describe('PeriodicVacuum on a Postgres server', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('vacuum');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('one process at a time: a pass while another session holds the lock does nothing; then it vacuums', async () => {
    for (let i = 0; i < 10; i++) for (const sql of CHURN) await ds.query(sql);
    const size = async () =>
      Number((await ds.query<{ n: string }[]>("SELECT pg_relation_size('outbox') AS n"))[0]!.n);
    expect(await size()).toBeGreaterThan(1_000_000);
    const other = new Client({ connectionString: db.url });
    await other.connect();
    const vacuum = new PeriodicVacuum(ds);
    try {
      // Another process's pass holds the lock.
      await other.query('SELECT pg_advisory_lock($1)', [VACUUM_LOCK]);
      expect(await vacuum.pass()).toBe(false);
      expect(await size()).toBeGreaterThan(1_000_000);
      await other.query('SELECT pg_advisory_unlock($1)', [VACUUM_LOCK]);
      expect(await vacuum.pass()).toBe(true);
      expect(await size()).toBe(0);
    } finally {
      await other.end();
    }
  });

  it("a pass analyzes a table that grew: the inbox's first page reads 51 index entries instead of sorting the tenant", async () => {
    await ds.query(
      `INSERT INTO pending_interrupts (interrupt_id, run_id, node_id, tenant, workflow_id, kind, key, requested_at)
       SELECT 'i' || g, 'r' || g, 'gate', 't1', 'wf' || (g % 50), 'approval', 'k' || g, now() - g * interval '1 second'
         FROM generate_series(1, 20000) g`,
    );
    const stats = async () =>
      (
        await ds.query<{ n: number }[]>(
          "SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'pending_interrupts' AND attname = 'tenant'",
        )
      )[0]!.n;
    expect(await stats()).toBe(0);
    expect(await new PeriodicVacuum(ds).pass()).toBe(true);
    expect(await stats()).toBe(1);
    // The list query of GET /v1/interrupts (first page, youngest first).
    const plan = JSON.stringify(
      await ds.query(
        `EXPLAIN (FORMAT JSON) SELECT p.interrupt_id, i.claimed_by FROM pending_interrupts p
           LEFT JOIN interrupts i ON i.interrupt_id = p.interrupt_id
          WHERE p.tenant = $1 ORDER BY p.requested_at DESC, p.interrupt_id DESC LIMIT 51`,
        ['t1'],
      ),
    );
    expect(plan).toContain('"Index Name":"pending_interrupts_tenant_requested"');
    expect(plan).not.toContain('"Node Type":"Sort"');
  });
});
