/**
 * `npm run bench:waits` (tools/bench/waits.sh starts the host): waits at scale (issue 19 item 5).
 * Seeds N runs (default 100,000) each waiting on an approval interrupt through the REST API, then
 * reports, against the targets:
 *   - RSS of every service process (/proc/<pid>/status VmRSS), idle before seeding vs after, and
 *     the peak during the timeout storm;
 *   - GET /v1/interrupts p50/p99: first page, a filtered page (kind + workflowId), and a deep page
 *     (walked to page DEEP_PAGES by cursor, then that page timed LIST_REPS times);
 *   - resolve (POST /v1/runs/{id}/interrupts/gate) p50 on the loaded host vs the same host empty;
 *   - the timeout storm: the storm runs' gates carry a timeoutMs that makes them all fall due within
 *     one window after seeding ends; counts expirations and run resumes from Postgres, checks each
 *     happened once, and times the last firing from the first due deadline.
 * How the deadlines line up: the first PILOT runs use a gate without a timeout (they measure the
 * seeding rate, and are the ones the loaded resolve answers); from the rate, the storm's due time
 * T = end of seeding (estimated × SAFETY) + MEASURE_S. Every SLOT_MS a new workflow is registered
 * whose gate's timeoutMs is T − now, so every run falls due in [T, T + SLOT_MS + start latency].
 * Seeding stops at T − MEASURE_S whatever N says (the count seeded is reported); SEED_MAX_S caps the
 * seeding time (and so T).
 * Env: WOP_URL, WOP_API_KEY, DATABASE_URL (the host's database: verification reads it), PIDS
 * ("name=pid,…" service processes), N, CONC (seeding concurrency, 32), PILOT (1000), SLOT_MS (2000),
 * SAFETY (1.3), MEASURE_S (120), SEED_MAX_S (3600), LIST_REPS (200), DEEP_PAGES (500), RESOLVE_N (100),
 * STORM_WAIT_S (600), TENANT (bench). Ends with one `summary:` line.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

const env = process.env;
const url = env.WOP_URL ?? 'http://127.0.0.1:8080';
const key = env.WOP_API_KEY ?? '';
const N = Number(env.N ?? 100_000);
const CONC = Number(env.CONC ?? 32);
const PILOT = Math.min(N, Number(env.PILOT ?? 1000));
const SLOT_MS = Number(env.SLOT_MS ?? 2000);
const SAFETY = Number(env.SAFETY ?? 1.3);
const MEASURE_S = Number(env.MEASURE_S ?? 120);
const LIST_REPS = Number(env.LIST_REPS ?? 200);
const DEEP_PAGES = Number(env.DEEP_PAGES ?? 500);
const RESOLVE_N = Math.min(PILOT, Number(env.RESOLVE_N ?? 100));
const STORM_WAIT_S = Number(env.STORM_WAIT_S ?? 600);
const SEED_MAX_S = Number(env.SEED_MAX_S ?? 3600);
const TENANT = env.TENANT ?? 'bench';
const PAGE = 50;
const tag = `w${Date.now().toString(36)}`;
const headers = {
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json',
};
const db = new pg.Client({ connectionString: env.DATABASE_URL });
await db.connect();

const log = (s: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.ok) return JSON.parse(text) as T;
    // A busy host may shed load (429/503): back off and try again, a few times.
    if ((res.status === 429 || res.status === 503) && attempt < 8) {
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      continue;
    }
    throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
  }
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const a = performance.now();
  await f();
  return performance.now() - a;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'NaN');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'NaN');

// ---- processes ---------------------------------------------------------------------------------
const pids = (env.PIDS ?? '')
  .split(',')
  .filter(Boolean)
  .map((p) => {
    const [name, pid] = p.split('=');
    return { name: name!, pid: pid! };
  });

function rssMb(pid: string): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
const rssAll = () => Object.fromEntries(pids.map(({ name, pid }) => [name, rssMb(pid)]));

// ---- workflows ---------------------------------------------------------------------------------
function gateWorkflow(id: string, timeoutMs?: number) {
  return {
    id,
    name: `bench waits ${id}`,
    version: '1.0',
    nodes: [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        name: 'Approval Gate',
        position: { x: 0, y: 0 },
        config: {
          title: 'bench: approve',
          actions: ['accept', 'reject'],
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        },
        inputs: {},
      },
    ],
    edges: [],
    triggers: [{ id: 'manual', type: 'manual', enabled: true }],
    variables: [],
    metadata: { tags: ['bench'] },
    settings: { timeout: 0 },
  };
}
const register = (id: string, timeoutMs?: number) =>
  call('POST', '/v1/workflows', gateWorkflow(id, timeoutMs));

const startRun = (workflowId: string) => call<{ runId: string }>('POST', '/v1/runs', { workflowId });

async function waitingApproval(runId: string): Promise<void> {
  let after = -1;
  for (;;) {
    const page = await call<{ nextAfter: number; runStatus: string }>(
      'GET',
      `/v1/runs/${runId}/events/poll?after=${after}&timeoutMs=5000`,
    );
    if (page.runStatus === 'waiting-approval') return;
    if (['failed', 'cancelled', 'completed'].includes(page.runStatus))
      throw new Error(`run ${runId} ${page.runStatus}`);
    after = page.nextAfter;
  }
}

/** Runs `count` tasks with CONC in flight; returns the wall seconds. */
async function pool(
  count: number,
  conc: number,
  task: (i: number) => Promise<void>,
  stop = () => false,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: conc }, async () => {
      for (;;) {
        const i = next++;
        if (i >= count || stop()) return;
        await task(i);
      }
    }),
  );
  return (performance.now() - t0) / 1000;
}

/** Resolve latency: POST the accept on `runIds` one at a time (each already waiting), returns ms each. */
async function resolveTimes(runIds: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const runId of runIds)
    out.push(await timed(() => call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' })));
  return out;
}

async function pendingCount(): Promise<{ projected: number; held: number }> {
  const { rows } = await db.query<{ projected: string; held: string }>(
    `SELECT (SELECT count(*) FROM pending_interrupts WHERE tenant = $1) AS projected,
            (SELECT count(*) FROM interrupts WHERE tenant = $1 AND status = 'pending') AS held`,
    [TENANT],
  );
  return { projected: Number(rows[0]!.projected), held: Number(rows[0]!.held) };
}

async function until(what: string, cond: () => Promise<boolean>, timeoutS: number): Promise<boolean> {
  const deadline = Date.now() + timeoutS * 1000;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  log(`timed out waiting for ${what}`);
  return false;
}

// ---- list measurements -------------------------------------------------------------------------
type ListPage = { interrupts: { runId: string }[]; nextCursor: string | null };
const listPath = (q: string) => `/v1/interrupts?limit=${PAGE}${q ? `&${q}` : ''}`;

async function listTimes(q: string, reps: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < reps; i++) out.push(await timed(() => call<ListPage>('GET', listPath(q))));
  return out;
}

/** Walks DEEP_PAGES pages by cursor; returns each page's time and the deepest page's query. */
async function deepWalk(maxPages: number): Promise<{ walk: number[]; deepQuery: string; pages: number }> {
  const walk: number[] = [];
  let cursor: string | null = null;
  let deepQuery = '';
  let pages = 0;
  while (pages < maxPages) {
    const q = cursor ? `cursor=${encodeURIComponent(cursor)}` : '';
    let page!: ListPage;
    walk.push(await timed(async () => (page = await call<ListPage>('GET', listPath(q)))));
    pages++;
    deepQuery = q;
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return { walk, deepQuery, pages };
}

async function listSuite(label: string, filterWorkflow: string): Promise<Record<string, number>> {
  const first = await listTimes('', LIST_REPS);
  const oldest = await listTimes('sort=-age', LIST_REPS);
  const filtered = await listTimes(
    `kind=approval&workflowId=${encodeURIComponent(filterWorkflow)}`,
    LIST_REPS,
  );
  const { walk, deepQuery, pages } = await deepWalk(DEEP_PAGES);
  const deep = await listTimes(deepQuery, LIST_REPS);
  const r = {
    first_p50: pct(first, 50),
    first_p99: pct(first, 99),
    oldest_p50: pct(oldest, 50),
    oldest_p99: pct(oldest, 99),
    filtered_p50: pct(filtered, 50),
    filtered_p99: pct(filtered, 99),
    walk_p50: pct(walk, 50),
    walk_p99: pct(walk, 99),
    deep_pages: pages,
    deep_p50: pct(deep, 50),
    deep_p99: pct(deep, 99),
  };
  log(
    `${label} list ms (p50/p99, ${LIST_REPS} reps, ${PAGE}/page): first ${f2(r.first_p50)}/${f2(r.first_p99)} | oldest-first ${f2(r.oldest_p50)}/${f2(r.oldest_p99)} | ` +
      `kind+workflow ${f2(r.filtered_p50)}/${f2(r.filtered_p99)} | cursor walk of ${pages} pages ${f2(r.walk_p50)}/${f2(r.walk_p99)} | page ${pages} ${f2(r.deep_p50)}/${f2(r.deep_p99)}`,
  );
  return r;
}

// ---- the run -----------------------------------------------------------------------------------
log(
  `# bench:waits N=${N} PILOT=${PILOT} CONC=${CONC} SLOT_MS=${SLOT_MS} MEASURE_S=${MEASURE_S} url=${url} services=${pids.map((p) => p.name).join(',')}`,
);
const holdWf = `${tag}-hold`;
await register(holdWf);
await register(`${tag}-empty`);

// Warm up (JIT, pools), then the empty host: resolve and list.
const warm: string[] = [];
await pool(20, 4, async () => {
  const { runId } = await startRun(`${tag}-empty`);
  await waitingApproval(runId);
  warm.push(runId);
});
await listTimes('', 20);
await resolveTimes(warm);
await until('warm-up resolves drained', async () => (await pendingCount()).held === 0, 60);
const emptyRuns: string[] = [];
await pool(RESOLVE_N, 8, async () => {
  const { runId } = await startRun(`${tag}-empty`);
  await waitingApproval(runId);
  emptyRuns.push(runId);
});
await until('empty pending visible', async () => (await pendingCount()).projected >= RESOLVE_N, 60);
const emptyList = await listSuite('empty host', `${tag}-empty`);
const resolveEmpty = await resolveTimes(emptyRuns);
log(
  `empty host resolve ms p50/p99: ${f2(pct(resolveEmpty, 50))}/${f2(pct(resolveEmpty, 99))} (${resolveEmpty.length})`,
);
await until('empty resolves drained', async () => (await pendingCount()).held === 0, 60);
const rssIdle = rssAll();
log(
  `idle RSS MB: ${JSON.stringify(Object.fromEntries(Object.entries(rssIdle).map(([k, v]) => [k, Math.round(v)])))}`,
);

// Pilot: gates without a timeout, measuring the seeding rate.
const pilotRuns: string[] = [];
let seedErrors = 0;
let firstError: unknown;
const seed = async (workflowId: string, keep?: string[]) => {
  try {
    const { runId } = await startRun(workflowId);
    keep?.push(runId);
  } catch (e) {
    seedErrors++;
    firstError ??= e;
  }
};
const seedT0 = Date.now();
const pilotS = await pool(PILOT, CONC, () => seed(holdWf, pilotRuns));
const rate = PILOT / pilotS;
const stormN = N - PILOT;
const estSeedS = stormN / rate;
const seedBudgetMs = Math.ceil(Math.min(estSeedS * SAFETY, SEED_MAX_S) * 1000);
const seedStopAt = Date.now() + seedBudgetMs;
const dueAt = seedStopAt + MEASURE_S * 1000;
log(
  `pilot: ${PILOT} runs in ${f1(pilotS)} s = ${f1(rate)} runs/s; storm of ${stormN} due at ${new Date(dueAt).toISOString()} (estimated seeding ${f1(estSeedS)} s)`,
);

// Storm runs: a new workflow every SLOT_MS whose timeout lands on dueAt.
let slot = '';
let slotAt = 0;
let slots = 0;
const slotCounts = new Map<string, number>();
let slotting: Promise<void> | undefined;
async function currentSlot(): Promise<string> {
  while (Date.now() - slotAt >= SLOT_MS) {
    if (!slotting) {
      slotting = (async () => {
        const id = `${tag}-s${slots++}`;
        const at = Date.now();
        await register(id, Math.max(1000, dueAt - at));
        slot = id;
        slotAt = at;
      })().finally(() => (slotting = undefined));
    }
    await slotting;
  }
  return slot;
}
let seeded = 0;
let progressAt = Date.now();
const stormT0 = performance.now();
const stormSeedS = await pool(
  stormN,
  CONC,
  async () => {
    const wf = await currentSlot();
    await seed(wf);
    seeded++;
    slotCounts.set(wf, (slotCounts.get(wf) ?? 0) + 1);
    if (Date.now() - progressAt > 30_000) {
      progressAt = Date.now();
      log(`  seeded ${seeded}/${stormN} (${f1(seeded / ((performance.now() - stormT0) / 1000))} runs/s)`);
    }
  },
  () => Date.now() >= seedStopAt,
);
const seedWallS = (Date.now() - seedT0) / 1000;
const total = PILOT + seeded - seedErrors;
log(
  `seeded ${seeded} storm runs in ${f1(stormSeedS)} s (${f1(seeded / stormSeedS)} runs/s, ${f2((stormSeedS * 1000) / Math.max(1, seeded))} ms/run at c${CONC}); ` +
    `${seedErrors} errors${firstError ? ` (first: ${firstError instanceof Error ? firstError.message.slice(0, 200) : JSON.stringify(firstError)})` : ''}; ${slots} slot workflows; all ${total} in ${f1(seedWallS)} s`,
);
const visible = await until(
  'all seeded pending visible',
  async () => {
    const c = await pendingCount();
    return c.projected >= total && c.held >= total;
  },
  300,
);
const counts = await pendingCount();
log(
  `pending: projected ${counts.projected}, held by the interrupt service ${counts.held}${visible ? '' : ' (NOT all visible)'}; ${f1((dueAt - Date.now()) / 1000)} s until due`,
);
const rssLoaded = rssAll();
log(
  `loaded RSS MB: ${JSON.stringify(Object.fromEntries(Object.entries(rssLoaded).map(([k, v]) => [k, Math.round(v)])))}`,
);

// Loaded host: list and resolve.
const bigSlot = [...slotCounts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? holdWf;
const loadedList = await listSuite('loaded host', bigSlot);
const resolveLoaded = await resolveTimes(pilotRuns.slice(0, RESOLVE_N));
log(
  `loaded host resolve ms p50/p99: ${f2(pct(resolveLoaded, 50))}/${f2(pct(resolveLoaded, 99))} (${resolveLoaded.length})`,
);
const measuredBeforeDue = Date.now() < dueAt;
log(
  `measurements ${measuredBeforeDue ? 'done before' : 'OVERRAN'} the due time (${f1((dueAt - Date.now()) / 1000)} s left)`,
);

// The storm.
const stormWfs = [...slotCounts.keys()];
const stormRows = async () => {
  const { rows } = await db.query<{
    due: string;
    expired: string;
    pending: string;
    first_due: Date;
    last_due: Date;
    last_fired: Date | null;
  }>(
    `SELECT count(*) AS due, count(*) FILTER (WHERE i.status = 'expired') AS expired, count(*) FILTER (WHERE i.status = 'pending') AS pending,
            min(i.deadline_at) AS first_due, max(i.deadline_at) AS last_due,
            max(i.updated_at) FILTER (WHERE i.status = 'expired') AS last_fired
       FROM interrupts i JOIN engine_runs r ON r.run_id = i.run_id
      WHERE i.tenant = $1 AND r.workflow_id = ANY($2::text[])`,
    [TENANT, stormWfs],
  );
  return rows[0]!;
};
const before = await stormRows();
log(
  `storm: ${before.due} interrupts due between ${before.first_due?.toISOString()} and ${before.last_due?.toISOString()}`,
);
const rssPeak = rssAll();
const sampler = setInterval(() => {
  const now = rssAll();
  for (const k of Object.keys(now)) if (!(rssPeak[k]! >= now[k]!)) rssPeak[k] = now[k]!;
}, 1000);
let fired = await stormRows();
const stormDeadline = Date.now() + Math.max(0, dueAt - Date.now()) + STORM_WAIT_S * 1000;
let lastLog = 0;
while (Date.now() < stormDeadline) {
  fired = await stormRows();
  if (Date.now() - lastLog > 10_000) {
    lastLog = Date.now();
    log(`  expired ${fired.expired}/${fired.due}, pending ${fired.pending}`);
  }
  if (Number(fired.pending) === 0 && Date.now() > dueAt) break;
  await new Promise((r) => setTimeout(r, 1000));
}
const firedS = fired.last_fired
  ? (fired.last_fired.getTime() - before.first_due.getTime()) / 1000
  : Number.NaN;
const lastDueToFiredS = fired.last_fired
  ? (fired.last_fired.getTime() - before.last_due.getTime()) / 1000
  : Number.NaN;
log(
  `storm: expired ${fired.expired}/${fired.due}; last fired ${f1(firedS)} s after the first deadline, ${f1(lastDueToFiredS)} s after the last`,
);

// The runs: each resumed once (one interrupt.resolved, one terminal event), from the engine's own run log.
const runSide = async () => {
  const { rows } = await db.query<{
    runs: string;
    resolved: string;
    resolved_runs: string;
    terminal: string;
    terminal_runs: string;
    last_terminal: string | null;
  }>(
    `SELECT (SELECT count(*) FROM engine_runs WHERE tenant = $1 AND workflow_id = ANY($2::text[])) AS runs,
            count(*) FILTER (WHERE e.event->>'type' = 'interrupt.resolved') AS resolved,
            count(DISTINCT e.run_id) FILTER (WHERE e.event->>'type' = 'interrupt.resolved') AS resolved_runs,
            count(*) FILTER (WHERE e.event->>'type' IN ('run.failed', 'run.completed')) AS terminal,
            count(DISTINCT e.run_id) FILTER (WHERE e.event->>'type' IN ('run.failed', 'run.completed')) AS terminal_runs,
            max(e.event->>'timestamp') FILTER (WHERE e.event->>'type' IN ('run.failed', 'run.completed')) AS last_terminal
       FROM engine_run_events e JOIN engine_runs r ON r.run_id = e.run_id
      WHERE r.tenant = $1 AND r.workflow_id = ANY($2::text[]) AND e.event->>'type' IN ('interrupt.resolved', 'run.failed', 'run.completed')`,
    [TENANT, stormWfs],
  );
  return rows[0]!;
};
let runs = await runSide();
const runsDeadline = Date.now() + STORM_WAIT_S * 1000;
lastLog = 0;
while (Number(runs.terminal_runs) < Number(fired.expired) && Date.now() < runsDeadline) {
  await new Promise((r) => setTimeout(r, 2000));
  runs = await runSide();
  if (Date.now() - lastLog > 10_000) {
    lastLog = Date.now();
    log(`  runs resumed ${runs.resolved_runs}, ended ${runs.terminal_runs}/${fired.expired}`);
  }
}
clearInterval(sampler);
const runsEndS = runs.last_terminal
  ? (Date.parse(runs.last_terminal) - before.first_due.getTime()) / 1000
  : Number.NaN;
const dupExpired = 0; // one row per interrupt: a second expiry cannot exist in `interrupts`; duplicates show in the run events.
const dupResolved = Number(runs.resolved) - Number(runs.resolved_runs);
const dupTerminal = Number(runs.terminal) - Number(runs.terminal_runs);
log(
  `runs: ${runs.runs} storm runs; ${runs.resolved_runs} resumed (interrupt.resolved ${runs.resolved}, duplicates ${dupResolved}); ` +
    `${runs.terminal_runs} ended (terminal events ${runs.terminal}, duplicates ${dupTerminal}); last ended ${f1(runsEndS)} s after the first deadline`,
);

// RSS table.
console.log('RSS MB     idle    loaded  storm-peak  Δloaded Δpeak');
let maxDelta = 0;
for (const { name } of pids) {
  const dl = rssLoaded[name]! - rssIdle[name]!;
  const dp = rssPeak[name]! - rssIdle[name]!;
  maxDelta = Math.max(maxDelta, dl, dp);
  console.log(
    `${name.padEnd(10)} ${f1(rssIdle[name]!).padStart(7)} ${f1(rssLoaded[name]!).padStart(7)} ${f1(rssPeak[name]!).padStart(10)} ${f1(dl).padStart(8)} ${f1(dp).padStart(6)}`,
  );
}
const listP99 = Math.max(loadedList.first_p99!, loadedList.filtered_p99!, loadedList.deep_p99!);
const resolveRatio = pct(resolveLoaded, 50) / pct(resolveEmpty, 50);
console.log(
  `summary: waits_pending=${total} seed_runs_per_s=${f1(seeded / stormSeedS)} seed_errors=${seedErrors} ` +
    `rss_max_delta_mb=${f1(maxDelta)} ` +
    `list_first_p99_ms=${f2(loadedList.first_p99!)} list_filtered_p99_ms=${f2(loadedList.filtered_p99!)} list_deep_p99_ms=${f2(loadedList.deep_p99!)} deep_page=${loadedList.deep_pages} list_p99_max_ms=${f2(listP99)} ` +
    `list_empty_first_p99_ms=${f2(emptyList.first_p99!)} ` +
    `resolve_p50_empty_ms=${f2(pct(resolveEmpty, 50))} resolve_p50_loaded_ms=${f2(pct(resolveLoaded, 50))} resolve_ratio=${f2(resolveRatio)} ` +
    `storm_due=${fired.due} storm_expired=${fired.expired} storm_fired_s=${f1(firedS)} storm_dup=${dupExpired + dupResolved + dupTerminal} ` +
    `storm_runs_ended=${runs.terminal_runs} storm_runs_ended_s=${f1(runsEndS)} measured_before_due=${measuredBeforeDue}`,
);
await db.end();
