import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * PGlite has no autovacuum. Queue-like churn (rows inserted, then deleted, as the outbox does) is
 * run through the built `PeriodicVacuum` and `PgliteConnection` in a child Node process (PGlite
 * cannot load in Jest's module sandbox), which reports heap sizes as JSON.
 */
const SCRIPT = `
const { PGlite } = require('@electric-sql/pglite');
const { Client } = require('pg');
const dist = ${JSON.stringify(join(__dirname, '../dist'))};
const { PgliteConnection } = require(dist + '/pglite-connection.js');
const { PeriodicVacuum } = require(dist + '/periodic-vacuum.js');
(async () => {
  const db = await PGlite.create();
  const client = new Client({ connection: new PgliteConnection(db) });
  await client.connect();
  let passes = 0;
  const query = async (sql, params) => {
    if (sql === 'VACUUM') passes++;
    return (await client.query(sql, params)).rows;
  };
  const size = async () => Number((await query("SELECT pg_relation_size('q') AS n"))[0].n);
  // 200 rows of ~600 bytes in, then out: what the outbox does with a burst of messages.
  const churn = async () => {
    await query("INSERT INTO q (key, value) SELECT 'k' || i, jsonb_build_object('pad', repeat('x', 600)) FROM generate_series(1, 200) i");
    await query('DELETE FROM q');
  };
  const deadline = (ms) => { const end = Date.now() + ms; return () => { if (Date.now() > end) throw new Error('timed out'); }; };
  await query('CREATE TABLE q (id bigserial PRIMARY KEY, key text NOT NULL, value jsonb NOT NULL)');
  const out = {};
  for (let i = 0; i < 20; i++) await churn();
  out.unvacuumed = await size();
  const vacuum = new PeriodicVacuum({ query }, 20);
  await vacuum.pass();
  out.afterOnePass = await size();
  // The same churn again, with the schedule running: each burst waits for the pass after it.
  vacuum.start();
  for (let i = 0; i < 20; i++) {
    const seen = passes;
    await churn();
    const check = deadline(10000);
    while (passes <= seen + 1) { check(); await new Promise((r) => setTimeout(r, 5)); }
  }
  await vacuum.stop();
  out.withSchedule = await size();
  // Seven intervals of churn after stop(): a schedule left running would vacuum in them.
  const stoppedAt = passes;
  for (const end = Date.now() + 140; Date.now() < end; ) await churn();
  out.passesAfterStop = passes - stoppedAt;
  await client.end();
  await db.close();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('PeriodicVacuum on PGlite (no autovacuum)', () => {
  let seen: { unvacuumed: number; afterOnePass: number; withSchedule: number; passesAfterStop: number };
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], {
      cwd: join(__dirname, '../../..'),
      timeout: 60_000,
    });
    seen = JSON.parse(stdout) as typeof seen;
  });

  it('without a vacuum, rows that were deleted keep their space: the heap only grows', () => {
    // 4,000 rows of ~600 bytes passed through a table that holds none of them now.
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
});
