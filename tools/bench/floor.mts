/**
 * `npm run bench:floor` — what the distributed design's plumbing costs on this machine, with no
 * domain logic: the CPU, summed over every process involved, of
 *  1. one bus hop: a message published with the product's KafkaBus (acks=all) and handled by a
 *     subscriber in another process, measured over a chain of HOPS relay processes with CONC
 *     messages in flight;
 *  2. one decision-shaped Postgres transaction (BEGIN with a `SELECT … FOR UPDATE`, an UPDATE, an
 *     INSERT, COMMIT, fsync on), CONC at a time over CONC connections, in one client process.
 * A HITL cycle of the five-service stack needs a known number of each (docs/performance-log.md), so the
 * two figures give the floor its CPU per cycle cannot go below, whatever the services do.
 * Env: KAFKA_BROKERS (default 127.0.0.1:9092), DATABASE_URL (default the local Postgres, database
 * postgres), HOPS (default 3), CONC (default 20), MESSAGES (default 3000), TRANSACTIONS (default 3000),
 * HOPS_PER_CYCLE (9.4) and TX_PER_CYCLE (10.5): what one HITL cycle of the distributed stack needs,
 * counted at c20 with count-requests.cjs (docs/performance-log.md, round 4).
 * Prints one line per part and a `floor:` line whose cpu_ms_per_cycle is
 * HOPS_PER_CYCLE × ms_per_hop + TX_PER_CYCLE × ms_per_tx. Linux only (CPU from /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { logLevel } from 'kafkajs';
import { KafkaBus, brokersFromEnv } from '@openwop/platform-bus';
import { median } from './harness.mts';
import { brokerPid, postgresTicks, procTicks, ticksToMs } from './proc-stat.mts';

const env = (k: string, d: number): number => Number(process.env[k] ?? d);
const HOPS = env('HOPS', 3);
const CONC = env('CONC', 20);
const MESSAGES = env('MESSAGES', 3000);
const TRANSACTIONS = env('TRANSACTIONS', 3000);
const HOPS_PER_CYCLE = env('HOPS_PER_CYCLE', 9.4);
const TX_PER_CYCLE = env('TX_PER_CYCLE', 10.5);
const databaseUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** CPU of a process, itself only, in ms. */
const cpuMs = (pid: number | string): number => ticksToMs(procTicks(pid)?.self ?? 0);

/** A relay: handles `from`, publishes each message to `to` with the same key. */
async function relay(from: string, to: string, group: string): Promise<void> {
  const bus = new KafkaBus({ brokers: brokersFromEnv(), clientId: group, logLevel: logLevel.NOTHING });
  await bus.start();
  await bus.subscribe({
    group,
    topics: [from],
    fromBeginning: true,
    handler: async (m) => bus.publish(to, [{ key: m.key, value: m.value }]),
    batchHandler: async (ms) =>
      bus.publish(
        to,
        ms.map((m) => ({ key: m.key, value: m.value })),
      ),
  });
  process.send?.('ready');
  process.on('SIGTERM', () => void bus.stop().finally(() => process.exit(0)));
}

async function hops(): Promise<{ cpuPerHop: number; nodePerHop: number; perS: number; p50: number }> {
  const ns = `floor-${randomUUID().slice(0, 8)}`;
  const topic = (i: number): string => `${ns}.hop${i}`;
  // Quiet: the first publishes to a fresh topic retry until its leader is known.
  const bus = new KafkaBus({
    brokers: brokersFromEnv(),
    clientId: `${ns}-driver`,
    logLevel: logLevel.NOTHING,
  });
  await bus.start();
  // Create every topic before the relays subscribe, so none waits for a topic to appear.
  for (let i = 0; i <= HOPS; i++) await bus.publish(topic(i), [{ key: 'warm', value: { warm: true } }]);
  const children: ChildProcess[] = [];
  for (let i = 0; i < HOPS; i++) {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), 'relay', topic(i), topic(i + 1), `${ns}-r${i}`],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`relay ${i} exited with ${code}`)));
    });
  }
  const waiting = new Map<string, () => void>();
  await bus.subscribe({
    group: `${ns}-driver`,
    topics: [topic(HOPS)],
    fromBeginning: true,
    handler: async (m) => waiting.get(m.key)?.(),
  });
  const send = async (id: string): Promise<number> => {
    const t0 = performance.now();
    const arrived = new Promise<void>((resolve) => waiting.set(id, resolve));
    await bus.publish(topic(0), [{ key: id, value: { id, at: Date.now() } }]);
    await arrived;
    waiting.delete(id);
    return performance.now() - t0;
  };
  const run = async (n: number): Promise<number[]> => {
    const lat: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONC }, async () => {
        while (next < n) lat.push(await send(`${ns}-${next++}`));
      }),
    );
    return lat;
  };
  await run(Math.min(200, MESSAGES));
  const pids = [process.pid, ...children.map((c) => c.pid!)];
  const broker = brokerPid();
  const nodeMs = (): number => pids.reduce((s, p) => s + cpuMs(p), 0);
  const brokerMs = (): number => (broker ? cpuMs(broker) : 0);
  const before = { node: nodeMs(), broker: brokerMs() };
  const t0 = performance.now();
  const lat = await run(MESSAGES);
  const wall = (performance.now() - t0) / 1000;
  const after = { node: nodeMs(), broker: brokerMs() };
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => c.once('exit', r))));
  await bus.stop();
  // Each message crossed HOPS + 1 publishes and handlings: the driver's and every relay's.
  const hopsDone = MESSAGES * (HOPS + 1);
  return {
    cpuPerHop: (after.node - before.node + after.broker - before.broker) / hopsDone,
    nodePerHop: (after.node - before.node) / hopsDone,
    perS: MESSAGES / wall,
    p50: median(lat),
  };
}

async function transactions(): Promise<{ cpuPerTx: number; clientPerTx: number; perS: number }> {
  const table = `floor_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, state jsonb NOT NULL, n int NOT NULL)`);
  await admin.query(
    `CREATE TABLE ${table}_out (id bigserial PRIMARY KEY, run int NOT NULL, value jsonb NOT NULL)`,
  );
  await admin.query(`INSERT INTO ${table} SELECT g, '{}'::jsonb, 0 FROM generate_series(0, $1) g`, [
    CONC - 1,
  ]);
  const clients = await Promise.all(
    Array.from({ length: CONC }, async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      return c;
    }),
  );
  const one = async (c: pg.Client, id: number): Promise<void> => {
    await c.query('BEGIN');
    const { rows } = await c.query<{ n: number }>({
      name: 'lock',
      text: `SELECT state, n FROM ${table} WHERE id = $1 FOR UPDATE`,
      values: [id],
    });
    const n = rows[0]!.n;
    await c.query({
      name: 'upd',
      text: `UPDATE ${table} SET state = $2, n = $3 WHERE id = $1`,
      values: [id, { step: n + 1 }, n + 1],
    });
    await c.query({
      name: 'out',
      text: `INSERT INTO ${table}_out (run, value) VALUES ($1, $2)`,
      values: [id, { event: 'x', n }],
    });
    await c.query('COMMIT');
  };
  const run = async (n: number): Promise<void> => {
    let next = 0;
    await Promise.all(
      clients.map(async (c, i) => {
        while (next++ < n) await one(c, i);
      }),
    );
  };
  await run(Math.min(300, TRANSACTIONS));
  const before = { client: cpuMs(process.pid), server: ticksToMs(postgresTicks()) };
  const t0 = performance.now();
  await run(TRANSACTIONS);
  const wall = (performance.now() - t0) / 1000;
  const after = { client: cpuMs(process.pid), server: ticksToMs(postgresTicks()) };
  await Promise.all(clients.map((c) => c.end()));
  await admin.query(`DROP TABLE ${table}, ${table}_out`);
  await admin.end();
  return {
    cpuPerTx: (after.client - before.client + after.server - before.server) / TRANSACTIONS,
    clientPerTx: (after.client - before.client) / TRANSACTIONS,
    perS: TRANSACTIONS / wall,
  };
}

if (process.argv[2] === 'relay') {
  await relay(process.argv[3]!, process.argv[4]!, process.argv[5]!);
} else {
  const h = await hops();
  console.log(
    `bus hop (KafkaBus, acks=all, ${HOPS} relay processes, ${CONC} in flight): ${h.cpuPerHop.toFixed(2)} ms CPU per hop (${h.nodePerHop.toFixed(2)} of it in the Node processes), ` +
      `${h.perS.toFixed(0)} messages/s through the chain, p50 ${h.p50.toFixed(1)} ms over ${HOPS + 1} hops`,
  );
  const t = await transactions();
  console.log(
    `decision transaction (4 statements, ${CONC} connections): ${t.cpuPerTx.toFixed(2)} ms CPU per transaction (${t.clientPerTx.toFixed(2)} of it in the client), ${t.perS.toFixed(0)} transactions/s`,
  );
  const perCycle = HOPS_PER_CYCLE * h.cpuPerHop + TX_PER_CYCLE * t.cpuPerTx;
  console.log(
    `floor: ms_per_hop=${h.cpuPerHop.toFixed(2)} ms_per_tx=${t.cpuPerTx.toFixed(2)} ` +
      `hops_per_cycle=${HOPS_PER_CYCLE} tx_per_cycle=${TX_PER_CYCLE} cpu_ms_per_cycle=${perCycle.toFixed(2)}`,
  );
}
