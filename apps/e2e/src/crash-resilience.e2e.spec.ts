import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  createTestDatabase,
  REPO_ROOT,
  startDistributedStack,
  TEST_KEYS,
  waitFor,
  type AppProcess,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { query } from './e2e-kit';

/**
 * Invariants 1, 2 and 6 under kill -9 of the services that decide: an engine and an interrupt
 * instance die while runs are suspended, the other engine and interrupt instance die while the
 * answers are in flight, and each comes back 1.5 s after its death (so for a while only restarted
 * instances serve). Every run still completes exactly once, nobody is asked twice, and the
 * projections equal a rebuild from the topic. Then an engine dies in the middle of run starts.
 */
const RUNS = Number(process.env.E2E_CRASH_RESILIENCE_RUNS ?? 200);
const START_RUNS = Number(process.env.E2E_CRASH_START_RUNS ?? 100);
const CONCURRENCY = 20;
const RESTART_AFTER_MS = 1_500;
/**
 * The command timeout of a third, impatient gateway. The two default gateways wait longer than a
 * Kafka failover (15 s), so they rarely answer 503; this one does during every failover, so the
 * client's "503 may still take effect → retry → 409" path runs too.
 */
const IMPATIENT_TIMEOUT_MS = 3_000;
/** Longer than anything the gateway may take (command timeout 15 s + read-your-writes 5 s): past it a request hangs. */
const HANG_MS = 30_000;
/** A client retries a `503 unavailable` this many times at most (one failover costs one or two). */
const MAX_ATTEMPTS = 8;

/** What one HTTP request got: `201`, `200`, `503 unavailable`, `409 interrupt_already_resolved`, `hung`, … */
interface Outcome {
  readonly label: string;
  readonly body: Record<string, unknown>;
  readonly ms: number;
}

async function send(baseUrl: string, method: string, path: string, body?: unknown): Promise<Outcome> {
  const t0 = Date.now();
  let res: Response;
  try {
    res = await fetch(new URL(path, baseUrl), {
      method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${TEST_KEYS.t1}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(HANG_MS),
    });
  } catch (e) {
    const name = e instanceof Error ? e.name : '';
    return {
      label: name === 'TimeoutError' ? 'hung' : `network ${String(e)}`,
      body: {},
      ms: Date.now() - t0,
    };
  }
  const text = await res.text();
  const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  const label = res.ok ? String(res.status) : `${res.status} ${String(parsed.error)}`;
  return { label, body: parsed, ms: Date.now() - t0 };
}

function tally(labels: readonly string[]): Record<string, number> {
  return labels.reduce<Record<string, number>>((acc, l) => ({ ...acc, [l]: (acc[l] ?? 0) + 1 }), {});
}

/** Percentiles and how many took longer than 5 s, of request durations in ms. */
function latency(ms: readonly number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) =>
    ((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) / 1000).toFixed(2);
  const slow = ms.filter((m) => m > 5_000).length;
  return `p50 ${at(0.5)} s, p90 ${at(0.9)} s, max ${at(1)} s, ${slow} over 5 s`;
}

/** Runs `task(i)` for i in 0..n-1 with `concurrency` in flight; `before(i)` runs just before each dispatch. */
async function pool(
  n: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
  before?: (i: number) => Promise<void>,
) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await before?.(i);
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

describe('kill -9 of engine and interrupt instances while runs are suspended and resolves are in flight', () => {
  let db: TestDatabase;
  let rebuilt: TestDatabase;
  let stack: RunningHost;
  /** The gateway with the short command timeout. */
  let impatient: string;
  const restarts: Promise<AppProcess>[] = [];
  let kills = 0;

  /** SIGKILLs `victim`, forgets it, and starts a replacement `RESTART_AFTER_MS` later. */
  const crash = async (victim: AppProcess) => {
    await victim.kill('SIGKILL');
    kills++;
    stack.processes.splice(stack.processes.indexOf(victim), 1);
    restarts.push(
      new Promise<void>((r) => setTimeout(r, RESTART_AFTER_MS)).then(() => stack.restart(victim.name)),
    );
  };
  const instancesOf = (app: string) => stack.processes.filter((p) => p.name === app);
  const inRuns = (runIds: readonly string[]) => [runIds] as unknown[];

  /** Per run: how many events of each type the projector stored. */
  const typeCounts = async (runIds: readonly string[]) => {
    const rows = await query<{ run_id: string; type: string; n: string }>(
      db.url,
      'SELECT run_id, type, count(*) AS n FROM run_events WHERE run_id = ANY($1) GROUP BY run_id, type',
      inRuns(runIds),
    );
    const byRun = new Map<string, Record<string, number>>();
    for (const r of rows) byRun.set(r.run_id, { ...byRun.get(r.run_id), [r.type]: Number(r.n) });
    return byRun;
  };

  /** Runs whose stored sequences are not exactly 0..n-1, or whose event ids repeat. */
  const gappyOrDuplicated = async (runIds: readonly string[]) => {
    const perRun = await query<{ run_id: string; n: string; min: number; max: number; ids: string }>(
      db.url,
      `SELECT run_id, count(*) AS n, min(sequence) AS min, max(sequence) AS max, count(DISTINCT doc->>'eventId') AS ids
       FROM run_events WHERE run_id = ANY($1) GROUP BY run_id`,
      inRuns(runIds),
    );
    expect(perRun).toHaveLength(runIds.length);
    return perRun.filter((r) => r.min !== 0 || Number(r.n) !== r.max + 1 || Number(r.ids) !== Number(r.n));
  };

  const outboxDrained = () =>
    waitFor(
      async () =>
        Number((await query<{ n: string }>(db.url, 'SELECT count(*) AS n FROM outbox'))[0]!.n) === 0,
      { timeoutMs: 30_000, intervalMs: 250, what: 'the outbox to drain' },
    );

  beforeAll(async () => {
    db = await createTestDatabase('e2e_crash_resilience');
    rebuilt = await createTestDatabase('e2e_crash_resilience_rebuild');
    stack = await startDistributedStack({ databaseUrl: db.url, instances: 2 });
    await stack.restart('gateway', { COMMAND_TIMEOUT_MS: String(IMPATIENT_TIMEOUT_MS) });
    impatient = stack.gateways[stack.gateways.length - 1]!;
  });
  afterAll(async () => {
    await Promise.allSettled(restarts);
    await stack?.stop();
    await db?.drop();
    await rebuilt?.drop();
  });

  it(`${RUNS} suspended runs: every resolve takes effect once and every run completes once`, async () => {
    const started = Date.now();
    const gateways = stack.gateways;

    // 1. N approval runs, through every gateway, all waiting for their approval.
    const runIds: string[] = [];
    const creates: string[] = [];
    const createMs: number[] = [];
    await pool(RUNS, CONCURRENCY, async (i) => {
      const o = await send(gateways[i % gateways.length]!, 'POST', '/v1/runs', {
        workflowId: 'conformance-approval',
      });
      creates.push(o.label);
      createMs.push(o.ms);
      if (o.label === '201') runIds.push(String(o.body.runId));
    });
    expect(tally(creates)).toEqual({ 201: RUNS });
    await waitFor(
      async () => {
        const [row] = await query<{ n: string }>(
          db.url,
          "SELECT count(*) AS n FROM runs WHERE status = 'waiting-approval' AND run_id = ANY($1)",
          inRuns(runIds),
        );
        return Number(row!.n) === RUNS;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: `${RUNS} runs waiting for approval` },
    );

    // 2. kill -9 one engine and one interrupt instance, and answer at once: 20 in flight over every
    //    gateway; a 503 is retried (on the next gateway) until 200 or 409. A quarter in, kill -9 the other engine and
    //    the other interrupt instance too, while run.resume commands are on their way to the engine.
    const [engineA, engineB] = instancesOf('engine');
    const [interruptA, interruptB] = instancesOf('interrupt');
    expect(engineB).toBeDefined();
    await Promise.all([crash(engineA!), crash(interruptA!)]);
    const history = new Map<string, string[]>();
    const resolveMs: number[] = [];
    const unavailableFrom: string[] = [];
    const killedAt = Date.now();
    let secondKillAt = 0;
    let secondKill = false;
    await pool(
      RUNS,
      CONCURRENCY,
      async (i) => {
        const runId = runIds[i]!;
        const seen: string[] = [];
        history.set(runId, seen);
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const gateway = gateways[(i + attempt) % gateways.length]!;
          const o = await send(gateway, 'POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' });
          seen.push(o.label);
          resolveMs.push(o.ms);
          if (o.label === '503 unavailable')
            unavailableFrom.push(gateway === impatient ? 'impatient' : 'default');
          if (o.label !== '503 unavailable') break;
        }
      },
      async (i) => {
        if (!secondKill && i >= RUNS / 4) {
          secondKill = true;
          secondKillAt = Date.now();
          await Promise.all([crash(engineB!), crash(interruptB!)]);
        }
      },
    );
    expect(secondKill).toBe(true);
    const answeredAt = Date.now();

    // Each run: exactly one 200, or 503s (the first answer may still have taken effect) then a 409.
    const outcomes = [...history.values()].flat();
    const shapes = [...history.entries()].filter(([, seen]) => {
      const last = seen[seen.length - 1];
      const before = seen.slice(0, -1);
      if (before.some((l) => l !== '503 unavailable')) return true;
      if (last === '200') return false;
      return !(last === '409 interrupt_already_resolved' && before.length > 0);
    });
    expect(shapes).toEqual([]);

    // 3. Every run completes; each asked once, answered once, completed once.
    await Promise.all(restarts);
    await waitFor(
      async () => {
        const [row] = await query<{ n: string }>(
          db.url,
          "SELECT count(*) AS n FROM runs WHERE status = 'completed' AND run_id = ANY($1)",
          inRuns(runIds),
        );
        return Number(row!.n) === RUNS;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: `${RUNS} completed runs` },
    );
    const completedAt = Date.now();
    const counts = await typeCounts(runIds);
    const once = ['interrupt.requested', 'interrupt.resolved', 'approval.received', 'run.completed'];
    const wrong = runIds.filter((r) => once.some((t) => counts.get(r)?.[t] !== 1));
    expect(wrong.map((r) => ({ runId: r, counts: counts.get(r) }))).toEqual([]);
    expect(await gappyOrDuplicated(runIds)).toEqual([]);
    const [dups] = await query<{ n: string }>(
      db.url,
      'SELECT count(*) AS n FROM (SELECT event_id FROM run_events GROUP BY event_id HAVING count(*) > 1) d',
    );
    expect(Number(dups!.n)).toBe(0);

    // The interrupt service's own table: one interrupt per run, resolved.
    const interrupts = await query<{ run_id: string; status: string }>(
      db.url,
      'SELECT run_id, status FROM interrupts WHERE run_id = ANY($1)',
      inRuns(runIds),
    );
    expect(interrupts).toHaveLength(RUNS);
    expect(new Set(interrupts.map((r) => r.run_id)).size).toBe(RUNS);
    expect(tally(interrupts.map((r) => r.status))).toEqual({ resolved: RUNS });
    await outboxDrained();

    // 4. The projections equal a rebuild from the topic.
    const [total] = await query<{ n: string }>(db.url, 'SELECT count(*) AS n FROM run_events');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['apps/projector/dist/rebuild.main.js', '--target', rebuilt.url, '--compare'],
      { cwd: REPO_ROOT, env: { ...process.env, ...stack.env } },
    );
    const read = /(\d+) events read, (\d+) applied/.exec(stdout);
    expect(read).not.toBeNull();
    expect(Number(read![2])).toBe(Number(total!.n));
    expect(stdout).toContain('projections identical to the live tables');

    const s = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;
    console.log(
      [
        `crash-resilience: ${RUNS} runs, ${kills} kills (engine + interrupt at t0, the other two at t0+${s(killedAt, secondKillAt)})`,
        `creates ${JSON.stringify(tally(creates))} (${latency(createMs)})`,
        `resolves ${JSON.stringify(tally(outcomes))} (${latency(resolveMs)}), all answered at t0+${s(killedAt, answeredAt)}`,
        `503s by gateway ${JSON.stringify(tally(unavailableFrom))}`,
        `all completed at t0+${s(killedAt, completedAt)}; whole case ${s(started, Date.now())}`,
        `topic: ${read![1]} events read, ${read![2]} distinct`,
      ].join('\n'),
    );
  });

  it(`kill -9 of an engine in the middle of ${START_RUNS} run starts: every accepted run waits for approval exactly once`, async () => {
    const started = Date.now();
    const gateways = stack.gateways;
    const accepted: string[] = [];
    const unconfirmed: string[] = [];
    const outcomes: string[] = [];
    const createMs: number[] = [];
    const unavailableFrom: string[] = [];
    let killed = false;
    const killsBefore = kills;
    await pool(
      START_RUNS,
      CONCURRENCY,
      async (i) => {
        const gateway = gateways[i % gateways.length]!;
        const o = await send(gateway, 'POST', '/v1/runs', { workflowId: 'conformance-approval' });
        outcomes.push(o.label);
        createMs.push(o.ms);
        if (o.label === '503 unavailable')
          unavailableFrom.push(gateway === impatient ? 'impatient' : 'default');
        if (o.label === '201') accepted.push(String(o.body.runId));
        const details = o.body.details as { runId?: string } | undefined;
        if (o.label === '503 unavailable' && details?.runId) unconfirmed.push(details.runId);
      },
      async (i) => {
        if (!killed && i >= START_RUNS / 4) {
          killed = true;
          await crash(instancesOf('engine')[0]!);
        }
      },
    );
    expect(killed).toBe(true);
    expect(outcomes.filter((o) => o !== '201' && o !== '503 unavailable')).toEqual([]);
    expect(accepted.length + unconfirmed.length).toBe(START_RUNS);

    await Promise.all(restarts);
    await waitFor(
      async () => {
        const [row] = await query<{ n: string }>(
          db.url,
          "SELECT count(*) AS n FROM runs WHERE status = 'waiting-approval' AND run_id = ANY($1)",
          inRuns(accepted),
        );
        return Number(row!.n) === accepted.length;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: `${accepted.length} accepted runs waiting for approval` },
    );
    await outboxDrained();
    // A 503 said "may still start": such a run started at most once, or not at all.
    const all = [...accepted, ...unconfirmed];
    const counts = await typeCounts(all);
    const once = ['run.started', 'interrupt.requested'];
    const wrongAccepted = accepted.filter((r) => once.some((t) => counts.get(r)?.[t] !== 1));
    expect(wrongAccepted.map((r) => ({ runId: r, counts: counts.get(r) }))).toEqual([]);
    const startedUnconfirmed = unconfirmed.filter((r) => counts.has(r));
    const wrongUnconfirmed = startedUnconfirmed.filter((r) => once.some((t) => counts.get(r)?.[t] !== 1));
    expect(wrongUnconfirmed).toEqual([]);
    expect(await gappyOrDuplicated([...accepted, ...startedUnconfirmed])).toEqual([]);
    const interrupts = await query<{ run_id: string; status: string }>(
      db.url,
      'SELECT run_id, status FROM interrupts WHERE run_id = ANY($1)',
      inRuns(all),
    );
    expect(interrupts).toHaveLength(accepted.length + startedUnconfirmed.length);
    expect(tally(interrupts.map((r) => r.status))).toEqual({ pending: interrupts.length });

    console.log(
      `crash-resilience starts: ${START_RUNS} starts ${JSON.stringify(tally(outcomes))} (${latency(createMs)}); ${kills - killsBefore} kill; ` +
        `503s by gateway ${JSON.stringify(tally(unavailableFrom))}; ` +
        `${startedUnconfirmed.length} of ${unconfirmed.length} unconfirmed runs started; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
