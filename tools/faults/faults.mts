/**
 * `npm run faults` — the distributed stack (two instances of every service, libs/testing
 * startDistributedStack) on its own Kafka broker and its own Postgres database, under a sustained
 * mixed load (approvals, clarifications, external events, signed-token resolves and conversations)
 * for DURATION, while faults are injected: kill -9 of
 * a random service instance (then restarted), restarts of the Kafka broker, and with
 * --restart-postgres restarts of the machine's Postgres cluster (`pg_ctlcluster 15 main restart`).
 *
 * Then checks: every accepted resolve resumed its node exactly once and the run completed; every
 * started run is terminal or legitimately waiting (none stuck running); gapless sequences, no
 * duplicate events; conversation turns recorded exactly once; the projections equal a rebuild from
 * the topic (`projector:rebuild --compare`). Prints counts; exits 1 on any anomaly.
 *
 * Env: DURATION (10m; `90s`, `3m`), FAULT_INTERVAL (20s), LOAD_CONCURRENCY (4), INSTANCES (2),
 * FAULT_KAFKA_PORT (19092), FAULT_RESTART_POSTGRES=1 (or --restart-postgres), FAULT_SEED,
 * FAULT_CONVERSATIONS=0 (leave conversations out of the load).
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { externalEventWorkflow } from '../lib/workflows.mts';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { isTerminalRunStatus } from '@openwop/contracts';
import {
  createTestDatabase,
  REPO_ROOT,
  startDistributedStack,
  TEST_KEYS,
  type AppProcess,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';

const run = promisify(execFile);

// ------------------------------------------------------------------ options

function seconds(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new Error(`not a duration: ${v}`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
}

const DURATION_S = seconds(process.env.DURATION ?? '10m');
const FAULT_INTERVAL_S = seconds(process.env.FAULT_INTERVAL ?? '20s');
const LOAD_CONCURRENCY = Number(process.env.LOAD_CONCURRENCY ?? 4);
const INSTANCES = Number(process.env.INSTANCES ?? 2);
const KAFKA_PORT = Number(process.env.FAULT_KAFKA_PORT ?? 19092);
const RESTART_POSTGRES =
  process.argv.includes('--restart-postgres') || process.env.FAULT_RESTART_POSTGRES === '1';
let seed = Number(process.env.FAULT_SEED ?? Date.now() % 2 ** 31);
const SEED = seed;

/** A small deterministic PRNG (mulberry32), so a seed replays the same fault choices. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pickOne = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const KAFKA_ENV = {
  ...process.env,
  KAFKA_HOME_DIR: resolve(REPO_ROOT, '.infra/faults/kafka'),
  KAFKA_PORT: String(KAFKA_PORT),
  KAFKA_HEAP_OPTS: process.env.KAFKA_HEAP_OPTS ?? '-Xmx384m -Xms128m',
  // A restart, not a drain: SIGKILL after 10 s (the broker recovers its log either way).
  KAFKA_STOP_TIMEOUT: process.env.KAFKA_STOP_TIMEOUT ?? '10',
};
const kafka = (cmd: string) =>
  run('bash', [resolve(REPO_ROOT, 'tools/kafka/kafka.sh'), cmd], { env: KAFKA_ENV, timeout: 120_000 });

/** Conversations are part of the mixed load unless FAULT_CONVERSATIONS=0. */
const WITH_CONVERSATIONS = process.env.FAULT_CONVERSATIONS !== '0';

// ------------------------------------------------------------------ counts

const counts = {
  operationsAccepted: 0,
  runsStarted: 0,
  resolvesAccepted: 0,
  turnsAccepted: 0,
  retriedAfterUnknownOutcome: 0,
  operationsFailed: 0,
  faults: { kill: 0, kafka: 0, postgres: 0 } as Record<string, number>,
  unplannedExits: 0,
  failedStarts: 0,
};
const anomalies: string[] = [];
const anomaly = (s: string) => {
  anomalies.push(s);
  if (anomalies.length <= 30) console.error(`ANOMALY ${s}`);
};

// ------------------------------------------------------------------ the stack and its gateways

class Stack {
  readonly host: RunningHost;
  /** Live instances and, for gateways, their URL. */
  readonly live = new Map<AppProcess, string | undefined>();
  private readonly killed = new Set<AppProcess>();

  constructor(host: RunningHost) {
    this.host = host;
    let g = 0;
    for (const p of host.processes) this.live.set(p, p.name === 'gateway' ? host.gateways[g++] : undefined);
  }

  gateways(): string[] {
    return [...this.live.values()].filter((u): u is string => u !== undefined);
  }

  gateway(): string {
    return pickOne(this.gateways());
  }

  /** Set while the broker is being restarted: a service cannot start without one. */
  kafkaBack: Promise<void> = Promise.resolve();

  /**
   * Starts a replacement instance, retrying as a supervisor would (a service exits at start when no
   * broker answers, and under load may take longer than the start deadline).
   */
  async restart(name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.kafkaBack;
      const before = this.host.gateways.length;
      try {
        const p = await this.host.restart(name);
        this.live.set(p, name === 'gateway' ? this.host.gateways[before] : undefined);
        return;
      } catch (e) {
        counts.failedStarts++;
        if (attempt >= 6) throw e;
        await sleep(2000 * attempt);
      }
    }
  }

  /** Replacements still starting. */
  private readonly restarting: Promise<void>[] = [];

  /**
   * kill -9 of a random instance of an app that has another live one (so every app keeps serving,
   * as with two replicas), and a replacement started 0.5–3 s later in the background, as a
   * supervisor would (under load a Node service takes a while to be ready).
   */
  async killOne(): Promise<string | undefined> {
    const liveOf = (name: string) => [...this.live.keys()].filter((p) => p.name === name).length;
    const candidates = [...this.live.keys()].filter((p) => liveOf(p.name) > 1);
    if (!candidates.length) return undefined;
    const victim = pickOne(candidates);
    this.killed.add(victim);
    this.live.delete(victim);
    await victim.kill('SIGKILL');
    const delay = 500 + random() * 2500;
    this.restarting.push(
      sleep(delay)
        .then(() => this.restart(victim.name))
        .catch((e: unknown) =>
          anomaly(`could not restart ${victim.name}: ${e instanceof Error ? e.message : String(e)}`),
        ),
    );
    return victim.name;
  }

  /** Waits for every replacement still starting. */
  async settle(): Promise<void> {
    await Promise.all(this.restarting);
  }

  /** Instances that exited without being killed here: counted, and replaced (in the background) as a supervisor would. */
  reapUnplanned(): void {
    for (const p of [...this.live.keys()]) {
      if (p.child.exitCode === null && p.child.signalCode === null) continue;
      counts.unplannedExits++;
      console.error(
        `\n${p.name} exited on its own (${p.child.exitCode ?? p.child.signalCode}); last output: ${p.output().slice(-400)}`,
      );
      this.live.delete(p);
      this.restarting.push(
        this.restart(p.name).catch((e: unknown) =>
          anomaly(`could not restart ${p.name}: ${e instanceof Error ? e.message : String(e)}`),
        ),
      );
    }
  }
}

// ------------------------------------------------------------------ HTTP with failover

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

async function call(
  stack: Stack,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${TEST_KEYS.t1}` },
): Promise<Answer> {
  const res = await fetch(`${stack.gateway()}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    json = { raw: text };
  }
  return { status: res.status, json };
}

/** Outcome label of one attempt: the status and error code, or `network` when no answer came. */
async function attempt(
  stack: Stack,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<{ label: string; answer?: Answer }> {
  try {
    const answer = await call(stack, method, path, body, headers);
    return {
      label: answer.status < 300 ? String(answer.status) : `${answer.status} ${String(answer.json.error)}`,
      answer,
    };
  } catch {
    return { label: 'network' };
  }
}

const retriable = (label: string) => label === 'network' || label.startsWith('503');

// ------------------------------------------------------------------ the load

type Scenario = 'approval' | 'clarification' | 'external' | 'token' | 'conversation';

interface Tracked {
  readonly runId: string;
  readonly scenario: Scenario;
  /** Resolve attempts' outcomes, in order. */
  readonly resolves: string[];
  /** Conversation turn message ids answered 2xx. */
  readonly turns: string[];
  resolved: boolean;
}

const tracked = new Map<string, Tracked>();
/** Run ids a create answered 503 for (the run may have started). */
const uncertainRuns = new Set<string>();

const EXTERNAL_WORKFLOW = externalEventWorkflow('faults-external', 'faults external event');

const CONVERSATION_WORKFLOW = {
  id: 'faults-conversation',
  name: 'faults conversation',
  version: '1.0.0',
  nodes: [
    {
      id: 'chat',
      typeId: 'agent.conversation',
      config: {
        provider: 'scripted',
        script: ['Hello! What shall we plan?', 'Noted.', 'Noted again.', 'Done.'],
      },
    },
    { id: 'after', typeId: 'core.noop', config: {} },
  ],
  edges: [{ id: 'e0', sourceNodeId: 'chat', targetNodeId: 'after' }],
  triggers: [],
  variables: [],
  metadata: {},
  settings: {},
};

const WORKFLOW_OF: Record<Scenario, string> = {
  approval: 'conformance-approval',
  token: 'conformance-approval',
  clarification: 'conformance-clarification',
  external: 'faults-external',
  conversation: 'faults-conversation',
};
const NODE_OF: Record<Scenario, string> = {
  approval: 'gate',
  token: 'gate',
  clarification: 'ask',
  external: 'gate',
  conversation: 'chat',
};
const ANSWER_OF: Record<Exclude<Scenario, 'conversation'>, unknown> = {
  approval: { action: 'accept' },
  token: { action: 'accept' },
  clarification: { answers: { q1: 'blue' } },
  external: { resumeValue: { eventPayload: { amount: 1 }, correlation: { orderId: 'o-1' } } },
};

/** How long a client keeps retrying 503s and lost connections (a broker restart under load takes a while). */
const CLIENT_PATIENCE_MS = 120_000;

/** Retries `op` on 503 and network failures (a real client's behaviour) for {@link CLIENT_PATIENCE_MS}. */
async function withRetries(
  stack: Stack,
  op: () => Promise<{ label: string; answer?: Answer }>,
  seen: string[],
): Promise<{ label: string; answer?: Answer }> {
  const deadline = Date.now() + CLIENT_PATIENCE_MS;
  let last: { label: string; answer?: Answer } = { label: 'network' };
  for (let i = 0; Date.now() < deadline; i++) {
    last = await op();
    seen.push(last.label);
    if (!retriable(last.label)) return last;
    counts.retriedAfterUnknownOutcome++;
    await sleep(Math.min(5000, 500 + i * 500));
    stack.reapUnplanned();
  }
  return last;
}

async function startRun(stack: Stack, scenario: Scenario): Promise<string | undefined> {
  const seen: string[] = [];
  const deadline = Date.now() + CLIENT_PATIENCE_MS;
  for (let i = 0; Date.now() < deadline; i++) {
    const r = await attempt(stack, 'POST', '/v1/runs', { workflowId: WORKFLOW_OF[scenario] });
    seen.push(r.label);
    if (r.label === '201' && typeof r.answer?.json.runId === 'string') {
      counts.runsStarted++;
      counts.operationsAccepted++;
      return r.answer.json.runId;
    }
    const message = r.answer?.json.message;
    const maybe = /run ([0-9a-f-]{36})/.exec(typeof message === 'string' ? message : '');
    if (maybe) uncertainRuns.add(maybe[1]!);
    if (!retriable(r.label)) break;
    await sleep(Math.min(5000, 500 + i * 500));
  }
  counts.operationsFailed++;
  return undefined;
}

async function waitWaiting(
  stack: Stack,
  runId: string,
  deadlineMs: number,
): Promise<Record<string, unknown> | undefined> {
  while (Date.now() < deadlineMs) {
    const r = await attempt(stack, 'GET', `/v1/runs/${runId}`);
    const raw = r.answer?.json.status;
    const status = typeof raw === 'string' ? raw : '';
    if (r.label === '200' && status.startsWith('waiting')) return r.answer!.json;
    if (isTerminalRunStatus(status)) return undefined;
    await sleep(200);
  }
  return undefined;
}

async function resolutionToken(
  stack: Stack,
  runId: string,
  snapshot: Record<string, unknown>,
): Promise<string | undefined> {
  const deadline = Date.now() + CLIENT_PATIENCE_MS;
  for (let snap: Record<string, unknown> | undefined = snapshot; Date.now() < deadline; ) {
    const token = (snap?.interrupt as { interruptToken?: string } | undefined)?.interruptToken;
    if (token) return token;
    await sleep(250);
    snap = (await attempt(stack, 'GET', `/v1/runs/${runId}`)).answer?.json;
  }
  return undefined;
}

async function cycle(stack: Stack, scenario: Scenario): Promise<void> {
  const runId = await startRun(stack, scenario);
  if (!runId) return;
  const t: Tracked = { runId, scenario, resolves: [], turns: [], resolved: false };
  tracked.set(runId, t);
  const snapshot = await waitWaiting(stack, runId, Date.now() + CLIENT_PATIENCE_MS);
  if (!snapshot) return; // checked at the end: the run must be waiting or terminal by then
  if (scenario === 'conversation') return converse(stack, t);
  let op: () => Promise<{ label: string; answer?: Answer }>;
  if (scenario === 'token') {
    // The snapshot's token is minted on demand by the token service, so it is missing while that
    // token instance was just killed (until another instance owns the partition).
    const token = await resolutionToken(stack, runId, snapshot);
    if (!token)
      return anomaly(`run ${runId}: waiting, but no resolution token within ${CLIENT_PATIENCE_MS} ms`);
    op = () => attempt(stack, 'POST', `/v1/interrupts/${token}`, ANSWER_OF.token, {});
  } else {
    op = () =>
      attempt(stack, 'POST', `/v1/runs/${runId}/interrupts/${NODE_OF[scenario]}`, ANSWER_OF[scenario]);
  }
  const last = await withRetries(stack, op, t.resolves);
  if (last.label === '200') {
    t.resolved = true;
    counts.resolvesAccepted++;
    counts.operationsAccepted++;
  } else if (!retriable(last.label)) {
    // After an unknown outcome, 409 means the earlier attempt took effect; anything else is wrong.
    if (last.label.startsWith('409') && t.resolves.length > 1) t.resolved = true;
    else anomaly(`run ${runId} (${scenario}): resolve answered ${t.resolves.join(' → ')}`);
  } else counts.operationsFailed++;
}

async function converse(stack: Stack, t: Tracked): Promise<void> {
  for (const [i, content] of ['Plan a trip to Lisbon.', 'Three days, please.'].entries()) {
    const messageId = crypto.randomUUID();
    const body = {
      nodeId: 'chat',
      operation: 'exchange',
      turn: { messageId, from: 'user', role: 'user', content },
    };
    const seen: string[] = [];
    const last = await withRetries(
      stack,
      () => attempt(stack, 'POST', `/v1/runs/${t.runId}:resolveInterrupt`, body),
      seen,
    );
    if (last.label === '200') {
      t.turns.push(messageId);
      counts.turnsAccepted++;
      counts.operationsAccepted++;
    } else if (!(seen.length > 1 && last.label.startsWith('409'))) {
      return anomaly(`run ${t.runId}: turn ${i + 1} answered ${seen.join(' → ')}`);
    } else t.turns.push(messageId);
  }
  const last = await withRetries(
    stack,
    () =>
      attempt(stack, 'POST', `/v1/runs/${t.runId}:resolveInterrupt`, { nodeId: 'chat', operation: 'close' }),
    t.resolves,
  );
  if (last.label === '200') {
    t.resolved = true;
    counts.resolvesAccepted++;
    counts.operationsAccepted++;
  } else if (last.label.startsWith('409') && t.resolves.length > 1) t.resolved = true;
  else if (!retriable(last.label)) anomaly(`run ${t.runId}: close answered ${t.resolves.join(' → ')}`);
}

async function load(stack: Stack, until: number): Promise<void> {
  const scenarios: Scenario[] = [
    'approval',
    'approval',
    'clarification',
    'external',
    'token',
    ...(WITH_CONVERSATIONS ? (['conversation'] as const) : []),
  ];
  const worker = async (w: number) => {
    for (let i = w; Date.now() < until; i++) {
      try {
        await cycle(stack, scenarios[i % scenarios.length]!);
      } catch (e) {
        counts.operationsFailed++;
        console.error('load cycle failed:', e);
      }
    }
  };
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, (_, w) => worker(w)));
}

// ------------------------------------------------------------------ faults

async function faults(stack: Stack, until: number): Promise<void> {
  while (Date.now() + FAULT_INTERVAL_S * 1000 < until) {
    await sleep(FAULT_INTERVAL_S * 1000 * (0.5 + random()));
    stack.reapUnplanned();
    const roll = random();
    const t0 = Date.now();
    // About one fault in five restarts the broker (each costs 10–40 s of bus outage), one in ten
    // Postgres when enabled; the rest kill -9 an instance.
    if (RESTART_POSTGRES && roll < 0.1) {
      await run('pg_ctlcluster', ['15', 'main', 'restart'], { timeout: 120_000 });
      counts.faults.postgres!++;
      log(`fault: Postgres restarted (${Date.now() - t0} ms)`);
    } else if (roll < 0.3 && (RESTART_POSTGRES || roll >= 0.1)) {
      let back!: () => void;
      stack.kafkaBack = new Promise((r) => (back = r));
      try {
        await kafka('stop');
        await sleep(1000 + random() * 2000);
        await kafka('start');
      } finally {
        back();
      }
      counts.faults.kafka!++;
      log(`fault: Kafka broker restarted (${Date.now() - t0} ms)`);
    } else {
      const name = await stack.killOne();
      if (name === undefined) continue;
      counts.faults.kill!++;
      log(`fault: kill -9 ${name} (a replacement starts in the background)`);
    }
  }
}

function log(s: string): void {
  const total = Object.values(counts.faults).reduce((a, b) => a + b, 0);
  console.log(
    `[${new Date().toISOString().slice(11, 19)}] ${s} — accepted ${counts.operationsAccepted}, faults ${total}, anomalies ${anomalies.length}`,
  );
}

// ------------------------------------------------------------------ checks

async function check(db: TestDatabase, stack: Stack): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const q = async <T,>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[];
  try {
    const all = [...tracked.keys()];
    // 1. Settle: resolved runs completed, the rest waiting or terminal, the outbox drained.
    const settleBy = Date.now() + 120_000;
    let notSettled: { run_id: string; status: string }[] = [];
    while (Date.now() < settleBy) {
      const rows = await q<{ run_id: string; status: string }>(
        'SELECT run_id, status FROM runs WHERE run_id = ANY($1)',
        [all],
      );
      const status = new Map(rows.map((r) => [r.run_id, r.status]));
      notSettled = all
        .filter((id) => {
          const s = status.get(id);
          if (tracked.get(id)!.resolved) return s !== 'completed';
          return !(s?.startsWith('waiting') || isTerminalRunStatus(s));
        })
        .map((id) => ({ run_id: id, status: status.get(id) ?? 'not projected' }));
      const [outbox] = await q<{ n: string }>('SELECT count(*) AS n FROM outbox');
      if (notSettled.length === 0 && Number(outbox!.n) === 0) break;
      await sleep(1000);
    }
    for (const r of notSettled.slice(0, 20))
      anomaly(
        `run ${r.run_id} (${tracked.get(r.run_id)!.scenario}, resolves ${tracked.get(r.run_id)!.resolves.join(' → ') || 'none'}) stuck: ${r.status}`,
      );
    if (notSettled.length > 20) anomaly(`… ${notSettled.length - 20} more stuck runs`);
    const [outbox] = await q<{ n: string }>('SELECT count(*) AS n FROM outbox');
    if (Number(outbox!.n) !== 0) anomaly(`outbox not drained: ${outbox!.n} rows`);
    const [running] = await q<{ n: string }>(
      "SELECT count(*) AS n FROM runs WHERE status IN ('running', 'pending')",
    );
    if (Number(running!.n) !== 0)
      anomaly(
        `${running!.n} run(s) still running after the settle time (all runs, started or not by an accepted request)`,
      );

    // 2. Exactly once: each completed run asked once, resolved once, resumed once, completed once.
    const typeCounts = await q<{ run_id: string; type: string; n: string }>(
      'SELECT run_id, type, count(*) AS n FROM run_events WHERE run_id = ANY($1) GROUP BY run_id, type',
      [all],
    );
    const per = new Map<string, Record<string, number>>();
    for (const r of typeCounts) per.set(r.run_id, { ...per.get(r.run_id), [r.type]: Number(r.n) });
    const [completedRows] = await q<{ ids: string[] | null }>(
      "SELECT array_agg(run_id) AS ids FROM runs WHERE status = 'completed' AND run_id = ANY($1)",
      [all],
    );
    const completed = completedRows!.ids ?? [];
    const once = [
      'run.started',
      'interrupt.requested',
      'interrupt.resolved',
      'node.resumed',
      'run.completed',
    ];
    let twice = 0;
    for (const id of completed) {
      const c = per.get(id) ?? {};
      const t = tracked.get(id)!;
      const wrong = once.filter(
        (type) => !(t.scenario === 'conversation' && type.startsWith('interrupt.')) && c[type] !== 1,
      );
      if (wrong.length) {
        twice++;
        if (twice <= 20) anomaly(`run ${id} (${t.scenario}): not exactly once: ${JSON.stringify(c)}`);
      }
    }
    const accepted200 = [...tracked.values()].filter((t) => t.resolves.filter((l) => l === '200').length > 1);
    for (const t of accepted200)
      anomaly(`run ${t.runId}: two resolves answered 200 (${t.resolves.join(' → ')})`);

    // 3. Logs: gapless sequences, no duplicate event ids.
    const gappy = await q<{ run_id: string }>(
      `SELECT run_id FROM run_events GROUP BY run_id
       HAVING min(sequence) <> 0 OR count(*) <> max(sequence) + 1 OR count(DISTINCT doc->>'eventId') <> count(*)`,
    );
    for (const r of gappy.slice(0, 10)) anomaly(`run ${r.run_id}: event log has gaps or duplicates`);

    // 4. Conversations: each accepted turn recorded exactly once.
    if (WITH_CONVERSATIONS) {
      const tables = await q<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_name = 'conversation_turns'",
      );
      if (tables.length) {
        const ids = [...tracked.values()].flatMap((t) => t.turns);
        const rows = await q<{ id: string; n: string }>(
          'SELECT message_id AS id, count(*) AS n FROM conversation_turns WHERE message_id = ANY($1) GROUP BY 1',
          [ids],
        );
        const seen = new Map(rows.map((r) => [r.id, Number(r.n)]));
        const lost = ids.filter((id) => (seen.get(id) ?? 0) === 0);
        const doubled = ids.filter((id) => (seen.get(id) ?? 0) > 1);
        if (lost.length) anomaly(`${lost.length} accepted conversation turn(s) lost`);
        if (doubled.length) anomaly(`${doubled.length} conversation turn(s) recorded twice`);
      }
    }

    // 5. The projections equal a rebuild from the topic.
    const target = new URL(db.url);
    target.pathname = `${target.pathname}_rebuild`;
    try {
      const { stdout } = await run(
        process.execPath,
        [
          resolve(REPO_ROOT, 'apps/projector/dist/rebuild.main.js'),
          '--target',
          target.toString(),
          '--compare',
        ],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, ...stack.host.env },
          timeout: 300_000,
        },
      );
      console.log(`  rebuild: ${stdout.trim().split('\n').join(' | ')}`);
    } catch (e) {
      const out = e as { stdout?: string; stderr?: string; code?: number };
      anomaly(
        `projections differ from a rebuild from the topic (exit ${out.code}): ${(out.stdout ?? '').trim()} ${(out.stderr ?? '').slice(-500)}`,
      );
    } finally {
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      await admin
        .query(`DROP DATABASE IF EXISTS "${decodeURIComponent(target.pathname.slice(1))}" WITH (FORCE)`)
        .catch(() => undefined);
      await admin.end();
    }
    console.log(
      `  runs: ${all.length} tracked, ${completed.length} completed, ${uncertainRuns.size} starts answered 503`,
    );
    // Storage per run, for docs/capacity.md: rows and bytes (heap + indexes + TOAST) of every table.
    await q('ANALYZE');
    const [runsRow] = await q<{ n: string }>('SELECT count(*) AS n FROM runs');
    const sizes = await q<{ t: string; rows: string; bytes: string }>(
      `SELECT c.relname AS t, c.reltuples::bigint::text AS rows, pg_total_relation_size(c.oid)::text AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC`,
    );
    const nRuns = Math.max(1, Number(runsRow!.n));
    console.log(
      `  storage over ${nRuns} runs (rows estimated by ANALYZE): ${sizes.map((r) => `${r.t} ${Math.round(Number(r.bytes) / 1024)} KiB/${Math.max(0, Number(r.rows))} rows`).join(', ')}`,
    );
  } finally {
    await client.end();
  }
}

// ------------------------------------------------------------------ main

async function main(): Promise<number> {
  const t0 = Date.now();
  mkdirSync(resolve(REPO_ROOT, '.infra/faults'), { recursive: true });
  console.log(
    `faults: DURATION ${DURATION_S} s, a fault every ~${FAULT_INTERVAL_S} s, ${INSTANCES} instances of every service, load ${LOAD_CONCURRENCY} workers, Kafka on :${KAFKA_PORT}, Postgres restarts ${RESTART_POSTGRES ? 'on' : 'off'}, conversations ${WITH_CONVERSATIONS ? 'on' : 'off (FAULT_CONVERSATIONS=0)'}, seed ${SEED}`,
  );
  // The broker's data stays between runs (a fresh one takes long to load its group coordinator);
  // each run has its own topic namespace.
  await kafka('start');
  const db = await createTestDatabase('faults');
  let host: RunningHost | undefined;
  try {
    // On a loaded machine a service may miss the 60 s start deadline: try the whole stack again once.
    for (let attempt = 1; !host; attempt++) {
      try {
        host = await startDistributedStack({
          databaseUrl: db.url,
          instances: INSTANCES,
          namespace: `faults-${Date.now().toString(36)}`,
          env: { KAFKA_BROKERS: `127.0.0.1:${KAFKA_PORT}` },
        });
      } catch (e) {
        if (attempt >= 2) throw e;
        console.error(
          `the stack did not start (${e instanceof Error ? e.message : String(e)}); trying again`,
        );
      }
    }
    const stack = new Stack(host);
    for (const wf of [EXTERNAL_WORKFLOW, ...(WITH_CONVERSATIONS ? [CONVERSATION_WORKFLOW] : [])]) {
      const r = await call(stack, 'POST', '/v1/workflows', wf);
      if (r.status !== 201) throw new Error(`register ${wf.id}: ${r.status} ${JSON.stringify(r.json)}`);
    }
    log(`stack up in ${Math.round((Date.now() - t0) / 1000)} s; load and faults start`);
    const until = Date.now() + DURATION_S * 1000;
    await Promise.all([load(stack, until), faults(stack, until)]);
    await stack.settle();
    stack.reapUnplanned();
    await stack.settle();
    log('load and faults done; checking');
    await check(db, stack);
    const totalFaults = Object.values(counts.faults).reduce((a, b) => a + b, 0);
    console.log('faults summary');
    console.log(
      `  duration:             ${Math.round((Date.now() - t0) / 1000)} s (load ${DURATION_S} s, seed ${SEED})`,
    );
    console.log(
      `  operations accepted:  ${counts.operationsAccepted} (runs started ${counts.runsStarted}, resolves ${counts.resolvesAccepted}, conversation turns ${counts.turnsAccepted})`,
    );
    console.log(
      `  retries after 503/no answer: ${counts.retriedAfterUnknownOutcome}; operations given up: ${counts.operationsFailed}`,
    );
    console.log(
      `  faults injected:      ${totalFaults} (kill -9 ${counts.faults.kill}, Kafka restarts ${counts.faults.kafka}, Postgres restarts ${counts.faults.postgres}); instances that exited on their own: ${counts.unplannedExits}; replacement starts retried: ${counts.failedStarts}`,
    );
    console.log(`  anomalies:            ${anomalies.length}`);
    return anomalies.length ? 1 : 0;
  } finally {
    await host?.stop();
    await db.drop().catch(() => undefined);
    await kafka('stop').catch(() => undefined);
  }
}

process.exitCode = await main().catch((e: unknown) => {
  console.error('faults failed:', e);
  return 2;
});
