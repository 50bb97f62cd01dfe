import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * PGlite imports modules dynamically, which Jest's module sandbox refuses, so the checks run in a
 * child Node process against the built `PgliteConnection` and report what they saw as JSON.
 */
const SCRIPT = `
const { PGlite } = require('@electric-sql/pglite');
const { Client } = require('pg');
const { PgliteConnection } = require(${JSON.stringify(join(__dirname, '../dist/pglite-connection.js'))});
(async () => {
  const db = await PGlite.create();
  let calls = 0;
  const exec = db.execProtocolStream.bind(db);
  const backend = { waitReady: db.waitReady, execProtocolStream: (m, o) => { calls++; return exec(m, o); } };
  const client = new Client({ connection: new PgliteConnection(backend) });
  await client.connect();
  const out = {};
  const code = (p) => p.then(() => 'ok', (e) => e.code);
  await client.query('CREATE TABLE t (id int PRIMARY KEY, v jsonb)');
  calls = 0;
  out.inserted = (await client.query('INSERT INTO t (id, v) VALUES ($1, $2::jsonb) RETURNING id, v', [1, '{"a":1}'])).rows;
  out.callsForOne = calls;
  for (const id of [1, 1]) out.named = (await client.query({ name: 'by_id', text: 'SELECT v FROM t WHERE id = $1', values: [id] })).rows;
  out.callsForThree = calls;
  out.duplicate = await code(client.query('INSERT INTO t (id) VALUES ($1)', [1]));
  await client.query('BEGIN');
  await client.query('INSERT INTO t (id) VALUES ($1)', [2]);
  out.divide = await code(client.query('SELECT 1 / $1::int', [0]));
  await client.query('ROLLBACK');
  out.count = (await client.query('SELECT count(*)::int AS n FROM t')).rows[0].n;
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.query('SELECT $1::int * 2 AS twice', [i])));
  out.together = answers.map((a) => a.rows[0].twice);
  await client.end();
  await db.close();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('node-postgres over PGlite in process (PgliteConnection)', () => {
  let seen: Record<string, unknown>;
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], {
      cwd: join(__dirname, '../../..'),
      timeout: 60_000,
    });
    seen = JSON.parse(stdout) as Record<string, unknown>;
  });

  it('runs a parametrized statement in one PGlite call, named or not', () => {
    expect(seen.inserted).toEqual([{ id: 1, v: { a: 1 } }]);
    expect(seen.callsForOne).toBe(1);
    expect(seen.named).toEqual([{ v: { a: 1 } }]);
    expect(seen.callsForThree).toBe(3);
  });

  it('reports errors with their codes and keeps the session usable; a failed transaction rolls back', () => {
    expect(seen.duplicate).toBe('23505');
    expect(seen.divide).toBe('22012');
    expect(seen.count).toBe(1);
  });

  it('answers statements issued together in the order they were issued', () => {
    expect(seen.together).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });
});
