#!/usr/bin/env node
/**
 * CPU per call of two per-message paths, against a built tree (default this one; pass another
 * checkout's root to compare builds, alternating runs):
 *   node tools/bench/per-call.cjs assert [TREE]   µs per assertCommand of run.start, interrupt.open,
 *                                                  interrupt.resolve and run.resume as they come off
 *                                                  the bus (a JSON copy each; its cost is subtracted)
 *   node tools/bench/per-call.cjs query [TREE]    client CPU µs per named statement, 20 in flight:
 *                                                  through ds.query (a pool checkout each), the pg
 *                                                  pool's query, and a held runner (a transaction's path)
 * `query` needs DATABASE_URL (a database it may use; default postgres://postgres@127.0.0.1:5432/postgres).
 * Env ITER (assert, default 10000), NQ (query, default 8000). Round 11 of docs/performance-log.md.
 */
const path = require('node:path');
const [what, treeArg] = process.argv.slice(2);
const tree = path.resolve(treeArg ?? path.join(__dirname, '../..'));
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function assertCalls() {
  const c = require(path.join(tree, 'libs/contracts/dist/index.js'));
  const actor = { tenant: 't1', principal: 'p', keyId: 'k' };
  const env = (type, data) => ({
    schemaVersion: 1,
    id: 'c1',
    type,
    occurredAt: '2026-01-01T00:00:00.000Z',
    correlationId: 'r1',
    actor,
    data,
  });
  const run = 'b1a7c3d2-1111-2222-3333-444455556666';
  const cases = [
    [c.ENGINE_COMMAND_DATA, env('run.start', { runId: run, workflowId: 'conformance-approval' })],
    [
      c.INTERRUPT_COMMAND_DATA,
      env('interrupt.open', {
        runId: run,
        nodeId: 'gate',
        interruptId: `${run}:gate:0`,
        kind: 'approval',
        key: `${run}:gate:0`,
        data: { title: 't' },
        requestedAt: '2026-01-01T00:00:00.000Z',
      }),
    ],
    [
      c.INTERRUPT_COMMAND_DATA,
      env('interrupt.resolve', { runId: run, nodeId: 'gate', via: 'api', resumeValue: { action: 'accept' } }),
    ],
    [
      c.ENGINE_COMMAND_DATA,
      env('run.resume', {
        runId: run,
        nodeId: 'gate',
        interruptId: `${run}:gate:0`,
        key: `${run}:gate:0`,
        outcome: 'resolved',
        resumeValue: { action: 'accept' },
        resolvedBy: 'p',
        resolvedAt: '2026-01-01T00:00:00.000Z',
      }),
    ],
  ].map(([registry, command]) => [registry, JSON.stringify(command)]);
  const iter = Number(process.env.ITER ?? 10_000);
  for (let round = 0; round < 3; round++) {
    let t = cpu();
    for (let i = 0; i < iter; i++)
      for (const [registry, text] of cases) c.assertCommand(JSON.parse(text), registry);
    const withParse = cpu() - t;
    t = cpu();
    for (let i = 0; i < iter; i++) for (const [, text] of cases) JSON.parse(text);
    const parse = cpu() - t;
    if (round > 0)
      console.log(
        `assertCommand ${((withParse - parse) / (iter * cases.length)).toFixed(2)} µs CPU a command`,
      );
  }
}

async function queryCalls() {
  const { openDatabase } = require(path.join(tree, 'libs/platform-db/dist/index.js'));
  const ds = await openDatabase({
    url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    poolSize: 4,
    applicationName: 'per-call',
  });
  const n = Number(process.env.NQ ?? 8000);
  const text = 'SELECT $1::int AS x, $2::text AS y';
  const perStatement = async (send) => {
    const t = cpu();
    for (let i = 0; i < n; i += 20)
      await Promise.all(Array.from({ length: 20 }, (_, j) => send([i + j, 'abc'])));
    return ((cpu() - t) / n).toFixed(1);
  };
  try {
    for (let round = 0; round < 3; round++) {
      const viaDs = await perStatement((v) => ds.query(text, v));
      const viaPool = await perStatement((v) => ds.driver.master.query(text, v));
      const runner = ds.createQueryRunner();
      await runner.connect();
      const viaRunner = await perStatement((v) => runner.query(text, v)).finally(() => runner.release());
      if (round > 0)
        console.log(
          `ds.query ${viaDs} µs, pool.query ${viaPool} µs, held runner ${viaRunner} µs CPU a statement`,
        );
    }
  } finally {
    await ds.destroy();
  }
}

if (what === 'assert') assertCalls();
else if (what === 'query') queryCalls().catch((e) => (console.error(e), process.exit(1)));
else {
  console.error('usage: per-call.cjs assert|query [TREE]');
  process.exit(2);
}
