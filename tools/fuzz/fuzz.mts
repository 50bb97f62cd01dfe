/**
 * `npm run fuzz` — sends schema-aware random and malformed requests to every gateway endpoint, and
 * hostile input of every class in requests.mts `HOSTILE_CLASSES` (borrowed authority, odd numbers,
 * keys named after Object.prototype members, JSON 3,000 deep, YAML alias bombs, crafted cursors,
 * content types other than JSON, bodies of the wrong JSON type, oversize workflows, ReDoS patterns
 * answered through a token link, a 4,000-node parallel workflow, values past a record's bounds),
 * and checks after each batch:
 * - no 5xx; every 4xx carries the spec's error envelope (error-envelope.schema.json); hostile
 *   requests get the status the issue requires (415, 400, …) within 5 s;
 * - a batch of refusals writes nothing (row digests of every service table before and after); an
 *   accepted request writes only rows of the runs and workflows it names or creates;
 * - no principal without resolving authority is handed a resolving token (snapshot, lists, events,
 *   SSE), no expired token is handed out, another tenant sees nothing of a run;
 * - no run is left unresolvable: each run a hostile request touched is terminal or waiting on an
 *   interrupt within 20 s, and at the end every run the fuzzer made that has not ended is cancelled
 *   and must reach a terminal status within 20 s;
 * - every dead letter the host counts (`openwop_bus_dead_letters_total`) has a log line naming it,
 *   and the run it names got a visible refusal (a 4xx);
 * - no API key and no resolving token the fuzzer saw appears in the host's log;
 * - tenant fairness: tenant t2 probes `GET /v1/runs?limit=1` every 20 ms (in a worker thread) the
 *   whole time, and the host's event-loop delay is read from `GET /metrics` each second; p99 of
 *   either at or over 100 ms is an anomaly.
 *
 * Starts its own host on a fresh Postgres database: `--mode embedded` (default, one process) or
 * `--mode distributed` (every service and a gateway as separate processes over the Kafka broker on
 * KAFKA_BROKERS, default 127.0.0.1:9092); or targets `--url` (then `--database-url` enables the
 * write checks, `--metrics-url U[,U…]` the metrics checks; the log is not checked).
 * Options (or env): --requests N (FUZZ_REQUESTS, 10000), --max-seconds S (FUZZ_MAX_SECONDS, 900),
 * --batch B (200), --hostile-batch H (FUZZ_HOSTILE_BATCH, 100), --concurrency C (8), --seed X,
 * --parallel-nodes P (FUZZ_PARALLEL_NODES, 4000), --token-ttl-ms T (FUZZ_TOKEN_TTL_MS, 15000: the
 * started host's token lifetime, so waiting runs outlive their tokens), --heavy-every K (FUZZ_HEAVY_EVERY, 3: the ReDoS
 * and parallel-workflow classes run every K-th round, from the first), --json (one
 * `FUZZ_RESULT {...}` line at the end), --timing-as-notes (`slow` and `unfair` findings are printed
 * as notes, not anomalies: for the test tier, which asserts no timings). Exits 1 on any anomaly.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { isTerminalRunStatus } from '@openwop/contracts';
import {
  createTestDatabase,
  REPO_ROOT,
  startDistributedStack,
  startEmbeddedHost,
  TEST_KEYS,
  type AppProcess,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { DbState, diff, type RowChange, type Snapshot } from './db-state.mts';
import { externalEventWorkflow } from '../lib/workflows.mts';
import {
  COVERED_ROUTES,
  HOSTILE_CLASSES,
  refusalArbitrary,
  refusedHostileRequests,
  requestArbitrary,
  type FuzzRequest,
  type HostileClass,
  type HostileRequest,
  type Pool,
} from './requests.mts';
import {
  borrowedAuthority,
  cancelAndEnd,
  inspectTokens,
  oddNumbers,
  oversizeValues,
  parallelWorkflow,
  protoKeys,
  redos,
  SCENARIO_WORKFLOWS,
  settle,
  snapshot,
  type Ctx,
} from './scenarios.mts';
import {
  deadLetterLines,
  EXPIRY_GRACE_MS,
  FairnessWatch,
  figures,
  fingerprint,
  idsIn,
  LogWatch,
  tokensIn,
  type Figures,
} from './watch.mts';

// ------------------------------------------------------------------ options

function option(name: string, env: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && process.argv[i + 1] !== undefined) return process.argv[i + 1]!;
  return process.env[env] ?? fallback;
}
const REQUESTS = Number(option('requests', 'FUZZ_REQUESTS', '10000'));
const MAX_SECONDS = Number(option('max-seconds', 'FUZZ_MAX_SECONDS', '900'));
const BATCH = Number(option('batch', 'FUZZ_BATCH', '200'));
const CONCURRENCY = Number(option('concurrency', 'FUZZ_CONCURRENCY', '8'));
const SEED = Number(option('seed', 'FUZZ_SEED', String(Date.now() % 2 ** 31)));
const URL_OPT = option('url', 'FUZZ_URL', '');
const DB_OPT = option('database-url', 'FUZZ_DATABASE_URL', '');
const METRICS_OPT = option('metrics-url', 'FUZZ_METRICS_URL', '');
const MODE = option('mode', 'FUZZ_MODE', 'embedded');
const HOSTILE_BATCH = Number(option('hostile-batch', 'FUZZ_HOSTILE_BATCH', '100'));
const PARALLEL_NODES = Number(option('parallel-nodes', 'FUZZ_PARALLEL_NODES', '4000'));
const HEAVY_EVERY = Math.max(1, Number(option('heavy-every', 'FUZZ_HEAVY_EVERY', '3')));
const JSON_OUT = process.argv.includes('--json');
/**
 * Token lifetime of a host the fuzzer starts (`WOP_TOKEN_TTL_MS`): short, so waiting runs outlive
 * their first tokens and every read after that must show a fresh token or none, never an expired one.
 */
const TOKEN_TTL_MS = option('token-ttl-ms', 'FUZZ_TOKEN_TTL_MS', '15000');
/**
 * `--timing-as-notes`: time-bound findings (`slow`, `unfair`) are printed as notes, not anomalies
 * (the test tier asserts no timings; the proof run keeps them as anomalies).
 */
const TIMING_AS_NOTES = process.argv.includes('--timing-as-notes');
/** A request that takes longer than this hangs (the longest legitimate wait is a 1 s long poll). */
const REQUEST_TIMEOUT_MS = 20_000;
/** A hostile request must be answered within this (the issue: a prompt 4xx, not a 15 s 503). */
const SLOW_MS = 5_000;
/** The issue's fairness target: p99 of another tenant's requests and of the event-loop delay. */
const FAIRNESS_MS = 100;
if (MODE !== 'embedded' && MODE !== 'distributed')
  throw new Error(`--mode must be embedded or distributed, got ${MODE}`);

const envelopeSchema = JSON.parse(
  readFileSync(resolve(REPO_ROOT, 'libs/contracts/src/schemas/error-envelope.schema.json'), 'utf8'),
) as object;
const validateEnvelope = new Ajv2020({ strict: false }).compile(envelopeSchema);

// ------------------------------------------------------------------ results

type AnomalyKind =
  | '5xx'
  | 'envelope'
  | 'unintended-write'
  | 'accepted-refusal'
  | 'hang'
  | 'not-quiet'
  | 'expectation'
  | 'slow'
  | 'stuck-run'
  | 'unresolvable-run'
  | 'borrowed-authority'
  | 'tenant-leak'
  | 'expired-token'
  | 'dead-letter'
  | 'secret-in-log'
  | 'unfair';

interface Anomaly {
  readonly kind: AnomalyKind;
  readonly detail: string;
  readonly cls?: HostileClass;
  readonly request?: Pick<FuzzRequest, 'endpoint' | 'method' | 'path'> & {
    body?: string;
    headers?: Record<string, string>;
  };
}

const stats = {
  requests: 0,
  byStatus: new Map<number, number>(),
  byEndpoint: new Map<string, number>(),
  fiveXx: 0,
  envelopeViolations: 0,
  unintendedWrites: 0,
  acceptedRefusals: 0,
  hangs: 0,
  hostRestarts: 0,
  batches: 0,
  refusalOnlyBatches: 0,
  acceptedMutations: 0,
  rowsChangedAsIntended: 0,
  hostileBatches: 0,
  runsTracked: 0,
  runsCancelledAtEnd: 0,
  deadLetters: 0,
  deadLettersMatched: 0,
  logBytesScanned: 0,
};
const anomalies: Anomaly[] = [];
/** Per hostile class: requests sent, statuses, anomalies. */
const byClass = new Map<
  HostileClass,
  { requests: number; byStatus: Record<number, number>; anomalies: number }
>(HOSTILE_CLASSES.map((c) => [c, { requests: 0, byStatus: {}, anomalies: 0 }]));
/** The class the fuzzer is sending now (anomalies found meanwhile are counted under it). */
let currentClass: HostileClass | undefined;

/** Time-bound findings under `--timing-as-notes`. */
const notes: Anomaly[] = [];

function record(a: Anomaly): void {
  if (TIMING_AS_NOTES && (a.kind === 'slow' || a.kind === 'unfair')) {
    notes.push(a);
    return;
  }
  const cls = a.cls ?? currentClass;
  anomalies.push(cls ? { ...a, cls } : a);
  if (cls) byClass.get(cls)!.anomalies++;
  if (anomalies.length <= 30)
    console.error(
      `ANOMALY ${a.kind}${cls ? ` [${cls}]` : ''}: ${redact(a.detail)}${a.request ? ` — ${a.request.method} ${redact(a.request.path.slice(0, 200))}` : ''}`,
    );
}

/** Secrets the fuzzer knows: the API keys and every resolving token it was handed. */
const secrets = new Set<string>();

/** `text` with every known secret cut to its fingerprint (what the fuzzer itself prints). */
function redact(text: string): string {
  let out = text;
  for (const k of Object.values(TEST_KEYS)) out = out.split(k).join(fingerprint(k));
  return out;
}

const brief = (r: FuzzRequest) => ({
  endpoint: r.endpoint,
  method: r.method,
  path: r.path.slice(0, 500),
  headers: r.headers,
  ...(r.body !== undefined
    ? { body: r.body.length > 2000 ? `${r.body.slice(0, 500)}… (${r.body.length} characters)` : r.body }
    : {}),
});

// ------------------------------------------------------------------ HTTP

interface Outcome {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly ms: number;
}

async function send(base: string, r: FuzzRequest): Promise<Outcome | 'hang'> {
  const t0 = performance.now();
  const o = await sendOnce(base, r);
  return o === 'hang' ? o : { ...o, ms: performance.now() - t0 };
}

async function sendOnce(base: string, r: FuzzRequest): Promise<Omit<Outcome, 'ms'> | 'hang'> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), REQUEST_TIMEOUT_MS);
  try {
    const res = await fetch(`${base}${r.path}`, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined ? { body: r.body } : {}),
      signal: ctl.signal,
      redirect: 'manual',
    });
    const contentType = res.headers.get('content-type') ?? '';
    if (r.stream && res.status === 200 && contentType.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, body: '', contentType };
    }
    return { status: res.status, body: await res.text(), contentType };
  } catch (e) {
    if (ctl.signal.aborted) return 'hang';
    // A URL fetch refuses to send (e.g. a malformed header value) is no request at all.
    return { status: 0, body: String(e), contentType: '' };
  } finally {
    clearTimeout(timer);
  }
}

async function api<T>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  key: string = TEST_KEYS.t1,
): Promise<{ status: number; json: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
}

// ------------------------------------------------------------------ the pool of live ids

const SAFE_WORKFLOWS = [
  'conformance-approval',
  'conformance-clarification',
  'conformance-noop',
  'conformance-approval-reject-routed',
  'conformance-approval-reject-loopback',
  'fuzz-external',
];

const EXTERNAL_WORKFLOW = externalEventWorkflow('fuzz-external', 'fuzz external event');

interface LiveRun {
  readonly runId: string;
  readonly kind: 'approval' | 'clarification' | 'external' | 'terminal';
}

class LivePool {
  runs: LiveRun[] = [];
  tokens: { token: string; runId: string }[] = [];
  extraRoutes: { method: string; path: string }[] = [];

  private readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  view(): Pool {
    const of = (k: LiveRun['kind']) => this.runs.filter((r) => r.kind === k).map((r) => r.runId);
    return {
      approvalRuns: of('approval'),
      clarificationRuns: of('clarification'),
      externalRuns: of('external'),
      terminalRuns: of('terminal').slice(-10),
      tokens: this.tokens.slice(-40),
      workflows: SAFE_WORKFLOWS,
      extraRoutes: this.extraRoutes,
    };
  }

  /** Starts runs until each kind has enough waiting ones; returns the run ids it started. */
  async replenish(): Promise<string[]> {
    const want: [LiveRun['kind'], string, number][] = [
      ['approval', 'conformance-approval', 6],
      ['clarification', 'conformance-clarification', 3],
      ['external', 'fuzz-external', 3],
      ['terminal', 'conformance-noop', 3],
    ];
    const started: string[] = [];
    for (const [kind, workflowId, n] of want) {
      const have = this.runs.filter((r) => r.kind === kind).length;
      for (let i = have; i < n; i++) {
        const { status, json } = await api<{ runId: string }>(this.base, 'POST', '/v1/runs', { workflowId });
        if (status !== 201)
          throw new Error(`setup: POST /v1/runs ${workflowId} → ${status} ${JSON.stringify(json)}`);
        started.push(json.runId);
        await this.waitSettled(json.runId);
        this.runs.push({ runId: json.runId, kind });
        await this.collectTokens(json.runId);
      }
    }
    return started;
  }

  private async waitSettled(runId: string): Promise<string> {
    const deadline = Date.now() + 20_000;
    let after = -1;
    while (Date.now() < deadline) {
      const { status, json } = await api<{ runStatus: string; nextAfter: number }>(
        this.base,
        'GET',
        `/v1/runs/${runId}/events/poll?after=${after}&timeoutMs=1000`,
      );
      if (status === 200 && json.runStatus !== 'running' && json.runStatus !== 'pending')
        return json.runStatus;
      if (status === 200) after = json.nextAfter;
    }
    throw new Error(`setup: run ${runId} did not settle within 20 s`);
  }

  private async collectTokens(runId: string): Promise<void> {
    const { json } = await api<{ interrupt?: { interruptToken?: string; inspectToken?: string } }>(
      this.base,
      'GET',
      `/v1/runs/${runId}`,
    );
    for (const token of [json.interrupt?.interruptToken, json.interrupt?.inspectToken])
      if (token) this.tokens.push({ token, runId });
  }

  /** Moves runs that ended (or moved on) out of the waiting sets. */
  async refresh(): Promise<void> {
    const next: LiveRun[] = [];
    for (const r of this.runs) {
      if (r.kind === 'terminal') {
        next.push(r);
        continue;
      }
      const { status, json } = await api<{
        status: string;
        interrupt?: { interruptToken?: string; inspectToken?: string };
      }>(this.base, 'GET', `/v1/runs/${r.runId}`);
      if (status !== 200) continue;
      // The tokens a waiting run shows now (fresh ones once the first expired), and none expired.
      checkExpiry(`/v1/runs/${r.runId}`, JSON.stringify(json));
      for (const token of [json.interrupt?.interruptToken, json.interrupt?.inspectToken])
        if (token && !this.tokens.some((t) => t.token === token)) this.tokens.push({ token, runId: r.runId });
      if (isTerminalRunStatus(json.status)) next.push({ runId: r.runId, kind: 'terminal' });
      else if (json.status.startsWith('waiting')) next.push(r);
    }
    const terminal = next.filter((r) => r.kind === 'terminal');
    this.runs = [...next.filter((r) => r.kind !== 'terminal'), ...terminal.slice(-20)];
    this.tokens = this.tokens.slice(-60);
  }

  /** Routes of the host's OpenAPI document without a dedicated generator. */
  async discoverRoutes(): Promise<{ total: number; extra: string[] }> {
    const { json } = await api<{ paths: Record<string, Record<string, unknown>> }>(
      this.base,
      'GET',
      '/v1/openapi.json',
    );
    const all: string[] = [];
    for (const [path, ops] of Object.entries(json.paths)) {
      for (const method of Object.keys(ops)) all.push(`${method.toUpperCase()} ${path.replace(/\\/g, '')}`);
    }
    const extra = all.filter((r) => !COVERED_ROUTES.includes(r));
    this.extraRoutes = extra.map((r) => {
      const [method, path] = r.split(' ') as [string, string];
      return { method, path };
    });
    return { total: new Set([...all, ...COVERED_ROUTES]).size, extra };
  }
}

// ------------------------------------------------------------------ checks

const KEY_NAMES = new Map<string, string>([
  [TEST_KEYS.t1, 't1'],
  [TEST_KEYS.t1b, 't1b'],
  [TEST_KEYS.t2, 't2'],
  [TEST_KEYS.readonly, 'readonly'],
]);

/** The test key a request carries (`Bearer <key>` exactly), if any. */
function keyOf(r: FuzzRequest): string | undefined {
  const m = /^Bearer (\S+)$/.exec(r.headers.authorization ?? '');
  return m && KEY_NAMES.has(m[1]!) ? m[1] : undefined;
}

/**
 * Tokens in an answer: every resolving one is a secret (grepped for in the log); one handed to a
 * principal that may not resolve (the read-only key, or nobody, other than the token it sent) is
 * borrowed authority; an expired one handed out (not merely echoed) is an anomaly.
 */
function checkTokens(r: FuzzRequest, o: Outcome, cls?: HostileClass): void {
  if (o.status >= 300 || !o.body.includes('eyJ')) return;
  const key = keyOf(r);
  const narrow = key === TEST_KEYS.readonly ? 'read-only key' : key ? '' : 'caller without a key';
  const sent = `${r.path}\n${r.body ?? ''}`;
  const found = tokensIn(o.body).filter((t) => !sent.includes(t.token));
  for (const t of found) if (t.intent === 'resolve') secrets.add(t.token);
  if (found.length)
    inspectTokens(
      {
        ...ctxFor(),
        anomaly: (kind, detail) =>
          record({ kind: kind as AnomalyKind, detail, request: brief(r), ...(cls ? { cls } : {}) }),
      },
      narrow,
      found.map((t) => t.token).join('\n'),
      r as HostileRequest,
    );
}

/** Flags an expired token in what the run's owner (t1) was shown at `path`. */
function checkExpiry(path: string, body: string): void {
  for (const t of tokensIn(body)) {
    if (t.intent === 'resolve') secrets.add(t.token);
    if (Date.parse(t.expiresAt) < Date.now() - EXPIRY_GRACE_MS)
      record({
        kind: 'expired-token',
        detail: `an expired ${t.intent} token (expiresAt ${t.expiresAt}) was handed out`,
        request: { endpoint: 'GET /v1/runs/{runId}', method: 'GET', path },
      });
  }
}

let ctxFor: () => Ctx = () => {
  throw new Error('no context yet');
};

function checkResponse(r: FuzzRequest, o: Outcome, cls?: HostileClass): void {
  stats.byStatus.set(o.status, (stats.byStatus.get(o.status) ?? 0) + 1);
  checkTokens(r, o, cls);
  if (o.status >= 500) {
    stats.fiveXx++;
    record({
      kind: '5xx',
      detail: `${o.status} ${o.body.slice(0, 300)}`,
      request: brief(r),
      ...(cls ? { cls } : {}),
    });
  }
  if (o.status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(o.body);
    } catch {
      parsed = undefined;
    }
    const ok =
      o.contentType.startsWith('application/json') && parsed !== undefined && validateEnvelope(parsed);
    if (!ok) {
      stats.envelopeViolations++;
      record({
        kind: 'envelope',
        detail: `${o.status} ${o.contentType} ${o.body.slice(0, 300)}`,
        request: brief(r),
        ...(cls ? { cls } : {}),
      });
    }
  }
}

/** Ids a 2xx answer names (a created run or fork, a registered workflow). */
function createdIds(o: Outcome): string[] {
  try {
    const v = JSON.parse(o.body) as Record<string, unknown>;
    return ['runId', 'workflowId'].map((k) => v[k]).filter((x): x is string => typeof x === 'string');
  } catch {
    return [];
  }
}

function checkWrites(
  changes: RowChange[],
  allowed: Set<string>,
  commandsAccepted: boolean,
  sample: FuzzRequest[],
): void {
  const bad = changes.filter((c) => {
    if (c.table === 'processed_messages') return !commandsAccepted;
    return !c.owners.some((o) => allowed.has(o));
  });
  stats.rowsChangedAsIntended += changes.length - bad.length;
  if (bad.length) {
    stats.unintendedWrites += bad.length;
    const tables = [...new Set(bad.map((c) => `${c.table}:${c.kind}`))].join(', ');
    record({
      kind: 'unintended-write',
      detail: `${bad.length} row(s) changed that no accepted request names (${tables}); e.g. ${JSON.stringify(bad.slice(0, 3))}; accepted in batch: ${sample.map((r) => `${r.method} ${r.path.slice(0, 80)}`).join('; ') || 'none'}`,
    });
  }
}

// ------------------------------------------------------------------ hostile input and its checks

/** Runs the fuzzer made (pool, accepted random requests, scenarios) and the key that may cancel each. */
const tracked = new Map<string, string>();
function track(runId: string, key: string | undefined): void {
  if (!key || tracked.has(runId)) return;
  tracked.set(runId, key);
  stats.runsTracked++;
}

/** Ids (run ids, message ids) named by a request that got a visible refusal (4xx). */
const refusedIds = new Set<string>();
function noteRefusal(r: FuzzRequest): void {
  for (const id of idsIn(`${r.path}\n${r.body?.slice(0, 20_000) ?? ''}`)) refusedIds.add(id);
}

function noteCreated(r: FuzzRequest, o: Outcome): void {
  if (
    o.status >= 200 &&
    o.status < 300 &&
    r.method === 'POST' &&
    (r.endpoint === 'POST /v1/runs' || r.endpoint.endsWith(':fork'))
  ) {
    for (const id of createdIds(o)) track(id, keyOf(r));
  }
}

/** Sends one hostile request and checks it: the usual checks, the status the issue requires, a prompt answer. */
async function execHostile(base: string, r: HostileRequest): Promise<Outcome | undefined> {
  // Hostile batches run concurrently: every anomaly names its request's class itself.
  const cls = r.cls;
  const o = await send(base, r);
  const c = byClass.get(cls)!;
  stats.requests++;
  c.requests++;
  stats.byEndpoint.set(r.endpoint, (stats.byEndpoint.get(r.endpoint) ?? 0) + 1);
  if (o === 'hang') {
    stats.hangs++;
    record({ kind: 'hang', detail: `no answer within ${REQUEST_TIMEOUT_MS} ms`, request: brief(r), cls });
    return undefined;
  }
  if (o.status === 0) {
    stats.requests--;
    c.requests--;
    return undefined;
  }
  c.byStatus[o.status] = (c.byStatus[o.status] ?? 0) + 1;
  checkResponse(r, o, cls);
  if (o.status >= 400 && o.status < 500) noteRefusal(r);
  noteCreated(r, o);
  if (r.expect && !r.expect.includes(o.status)) {
    record({
      kind: 'expectation',
      detail: `${o.status} where ${r.expect.join(' or ')} is required: ${o.body.slice(0, 300)}`,
      request: brief(r),
      cls,
    });
  }
  slowest.push({
    ms: Math.round(o.ms),
    status: o.status,
    cls,
    request: `${r.method} ${r.path.slice(0, 120)}${r.body ? ` ${r.body.slice(0, 120)}${r.body.length > 120 ? `… (${r.body.length} characters)` : ''}` : ''}`,
  });
  slowest.sort((a, b) => b.ms - a.ms);
  slowest.length = Math.min(slowest.length, 8);
  if (o.ms > SLOW_MS)
    record({
      kind: 'slow',
      detail: `answered ${o.status} only after ${Math.round(o.ms)} ms`,
      request: brief(r),
      cls,
    });
  return o;
}

/** The slowest hostile requests (a reproducer for a fairness finding). */
const slowest: { ms: number; status: number; cls: HostileClass; request: string }[] = [];

/** Hostile requests in round-robin order of their classes (any prefix covers every class early). */
function interleave(rs: HostileRequest[]): HostileRequest[] {
  const groups = HOSTILE_CLASSES.map((c) => rs.filter((r) => r.cls === c)).filter((g) => g.length);
  const out: HostileRequest[] = [];
  for (let i = 0; out.length < rs.length; i++) for (const g of groups) if (i < g.length) out.push(g[i]!);
  return out;
}

function metricsUrlsOf(processes: readonly AppProcess[]): string[] {
  return processes
    .map((p) => /metrics on (http:\/\/\S+\/metrics)/.exec(p.output())?.[1])
    .filter((u): u is string => !!u);
}

// ------------------------------------------------------------------ the target

/** What the fuzzer aims at: a host it started on a fresh database, or the one `--url` names. */
interface Target {
  readonly base: string;
  /** Postgres of the target, for the write checks ('' = not checked). */
  readonly dbUrl: string;
  readonly metricsUrls: readonly string[];
  /** Metrics URL → the process serving it. */
  readonly processOf: ReadonlyMap<string, string>;
  /** The host's log (empty when the host was not started here). */
  readonly logs: LogWatch;
  readonly host?: RunningHost | undefined;
  readonly db?: TestDatabase | undefined;
}

/**
 * Starts the `--mode` host on a fresh database (once more if the first start misses its readiness
 * bound), or takes `--url`, `--database-url` and `--metrics-url` as they are.
 */
async function startTarget(): Promise<Target> {
  const logs = new LogWatch([]);
  if (URL_OPT) {
    const metricsUrls = METRICS_OPT ? METRICS_OPT.split(',') : [`${URL_OPT}/metrics`];
    return { base: URL_OPT, dbUrl: DB_OPT, metricsUrls, processOf: new Map(), logs };
  }
  const db = await createTestDatabase('fuzz');
  // METRICS_PORT 0: each process serves its metrics on a port of its own, which it logs.
  const env = { WOP_TOKEN_TTL_MS: TOKEN_TTL_MS };
  const start = () =>
    MODE === 'distributed'
      ? startDistributedStack({ databaseUrl: db.url, env: { ...env, METRICS_PORT: '0' } })
      : startEmbeddedHost({ databaseUrl: db.url, env });
  // A start on a busy machine may miss the 60 s readiness bound once; a second failure is fatal.
  const host = await start().catch((e: unknown) => {
    console.error(`the ${MODE} host did not start (${String(e).split('\n')[0]}); trying once more`);
    return start();
  });
  const base = host.gateways[0]!;
  for (const p of host.processes) logs.add(p);
  if (host.mode === 'embedded') watch(host.processes[0]!);
  const metricsUrls = host.mode === 'embedded' ? [`${base}/metrics`] : metricsUrlsOf(host.processes);
  const processOf = new Map<string, string>();
  for (const p of host.processes) {
    const u = metricsUrlsOf([p])[0];
    if (u) processOf.set(u, p.name);
  }
  return { base, dbUrl: db.url, metricsUrls, processOf, logs, host, db };
}

/** The scenarios' context: hostile requests, anomalies and runs go to this file's checks and counters. */
function contextFor(base: string): Ctx {
  return {
    base,
    keys: TEST_KEYS,
    exec: (r) => execHostile(base, r),
    anomaly: (kind, detail, request) =>
      record({ kind: kind as AnomalyKind, detail, ...(request ? { request: brief(request) } : {}) }),
    track,
    secrets,
    parallelNodes: PARALLEL_NODES,
    limits: {},
  };
}

// ------------------------------------------------------------------ the host's log and dead letters

/** Reads the host's log as it grows: secrets it must not hold, and the dead letters it names. */
class LogChecks {
  /** Dead-letter log lines read since the last dead-letter check. */
  private deadLetterLog: string[] = [];
  private readonly reportedSecrets = new Set<string>();

  private readonly logs: LogWatch;
  private readonly fair: FairnessWatch;
  private readonly metricsUrls: readonly string[];

  constructor(logs: LogWatch, fair: FairnessWatch, metricsUrls: readonly string[]) {
    this.logs = logs;
    this.fair = fair;
    this.metricsUrls = metricsUrls;
  }

  /** Reads the host's new log output: secrets it must not hold, lines naming dead letters. */
  scan(): void {
    const all = [...Object.values(TEST_KEYS), ...secrets];
    for (const [name, file, text] of this.logs.fresh()) {
      stats.logBytesScanned += text.length;
      this.deadLetterLog.push(...deadLetterLines(text));
      for (const secret of all) {
        if (this.reportedSecrets.has(secret) || !text.includes(secret)) continue;
        this.reportedSecrets.add(secret);
        const line = text.split('\n').find((l) => l.includes(secret)) ?? '';
        const what = KEY_NAMES.has(secret) ? `API key ${KEY_NAMES.get(secret)}` : 'a resolving token';
        record({
          kind: 'secret-in-log',
          detail: `${name} logged ${what} (${fingerprint(secret)}) in ${file}: ${redact(line.split(secret).join(fingerprint(secret))).slice(0, 400)}`,
        });
      }
    }
  }

  /** Every dead letter counted since the last check needs a log line naming it, and a refusal of what it names. */
  async checkDeadLetters(): Promise<void> {
    if (!this.metricsUrls.length) return;
    await this.fair.scrape();
    this.scan();
    const delta = this.fair.deadLetters - stats.deadLetters;
    const lines = this.deadLetterLog;
    this.deadLetterLog = [];
    if (delta <= 0) return;
    stats.deadLetters = this.fair.deadLetters;
    if (!lines.length) {
      record({
        kind: 'dead-letter',
        detail: `${delta} dead letter(s) counted (${JSON.stringify(this.fair.deadLetterSeries)}) with no log line naming run, message and reason`,
      });
      return;
    }
    for (const line of lines) {
      if (idsIn(line).some((id) => refusedIds.has(id))) stats.deadLettersMatched++;
      else
        record({
          kind: 'dead-letter',
          detail: `a dead letter no request of the fuzzer saw refused: ${redact(line).slice(0, 400)}`,
        });
    }
  }
}

// ------------------------------------------------------------------ setup

type Limits = Ctx['limits'];

/** The routes the host serves: how many, and those only its OpenAPI document names. */
type Routes = Awaited<ReturnType<LivePool['discoverRoutes']>>;

/** The bounds the host's discovery document advertises (`maxWorkflowNodes`, …), where it does. */
async function discoverLimits(base: string): Promise<Limits> {
  const discovery = await api<{
    limits?: Record<string, unknown>;
    extensions?: { limits?: Record<string, unknown> };
  }>(base, 'GET', '/.well-known/openwop');
  const limitOf = (name: string) => {
    const v = discovery.json.extensions?.limits?.[name] ?? discovery.json.limits?.[name];
    return typeof v === 'number' && v > 0 ? v : undefined;
  };
  return {
    nodes: limitOf('maxWorkflowNodes'),
    edges: limitOf('maxWorkflowEdges'),
    executions: limitOf('maxNodeExecutions'),
  };
}

/** The hostile class each scenario workflow's registration counts under. */
const SCENARIO_CLASS: Record<string, HostileClass> = {
  'fuzz-conversation': 'borrowed-authority',
  'fuzz-custom': 'proto-keys',
  'fuzz-loop': 'odd-numbers',
};

/**
 * Before the first round: the routes to cover, the external-event workflow the pool starts, the
 * host's limits (into `ctx`), and the scenarios' workflows (registered as checked hostile requests).
 */
async function setUp(base: string, pool: LivePool, ctx: Ctx): Promise<{ routes: Routes; limits: Limits }> {
  const routes = await pool.discoverRoutes();
  const reg = await api(base, 'POST', '/v1/workflows', EXTERNAL_WORKFLOW);
  if (reg.status !== 201) throw new Error(`setup: register ${EXTERNAL_WORKFLOW.id} → ${reg.status}`);
  const limits = await discoverLimits(base);
  ctx.limits = limits;
  for (const w of SCENARIO_WORKFLOWS) {
    await execHostile(base, {
      cls: SCENARIO_CLASS[w.id] ?? 'redos',
      endpoint: 'POST /v1/workflows',
      method: 'POST',
      path: '/v1/workflows',
      headers: { authorization: `Bearer ${TEST_KEYS.t1}`, 'content-type': 'application/json' },
      body: JSON.stringify(w),
      mutating: true,
      targets: [],
    });
  }
  return { routes, limits };
}

// ------------------------------------------------------------------ rounds

/** What the rounds share: the target, its checks, and where the batches have got to. */
interface Session {
  readonly t0: number;
  readonly target: Target;
  readonly state: DbState | undefined;
  readonly fair: FairnessWatch;
  readonly checks: LogChecks;
  readonly pool: LivePool;
  readonly ctx: Ctx;
  readonly limits: Limits;
  /** Random batches sent (the seed of the next is `SEED + batchNo`). */
  batchNo: number;
  /** Rounds of scenarios run. */
  round: number;
  /** Where the next hostile batch starts in the list of hostile requests. */
  hostileOffset: number;
}

/** Rounds until `--requests` were sent or `--max-seconds` passed; restarts an embedded host stopped from outside. */
async function fuzzRounds(s: Session): Promise<void> {
  const deadline = s.t0 + MAX_SECONDS * 1000;
  while (stats.requests < REQUESTS && Date.now() < deadline) {
    // Something outside stopped the embedded host (its data is in Postgres): start it again on the
    // same port and database; a batch it died in is not write-checked.
    if (s.target.host && hostExit) await restartHost(s, s.target.host);
    try {
      await oneRound(s);
    } catch (e) {
      if (!hostExit) throw e;
    }
  }
}

async function restartHost(s: Session, host: RunningHost): Promise<void> {
  console.error(`\nthe embedded host stopped ${hostExit}; restarting it`);
  stats.hostRestarts++;
  hostExit = '';
  const p = await host.restart('embedded');
  s.target.logs.add(p);
  watch(p);
  if (s.state) await s.state.refreshTables();
}

/** The row digests once the host stopped writing (an anomaly when it keeps writing for 15 s). */
async function quietSnapshot(state: DbState | undefined, when: string): Promise<Snapshot | undefined> {
  if (!state) return undefined;
  if (!(await state.quiesce()))
    record({ kind: 'not-quiet', detail: `the host kept writing for 15 s ${when}` });
  return state.snapshot();
}

/** Setup, a random batch, a hostile batch and the scenarios, each checked. */
async function oneRound(s: Session): Promise<void> {
  await replenishPool(s);
  await randomBatch(s);
  if (hostExit) return;
  await s.pool.refresh();
  await s.checks.checkDeadLetters();

  // One batch of hostile requests the host must refuse: it must write nothing either.
  await hostileBatch(s);
  if (hostExit) return;
  // The stateful hostile classes, each on runs of its own.
  await scenarios(s, s.round++);
  s.checks.scan();
  await s.checks.checkDeadLetters();
  await s.pool.refresh();
  if (!JSON_OUT)
    process.stderr.write(
      `\r${stats.requests} requests, ${anomalies.length} anomalies, ${Math.round((Date.now() - s.t0) / 1000)} s `,
    );
}

/** Setup (valid requests, checked too: they may only write the runs they start). */
async function replenishPool(s: Session): Promise<void> {
  s.fair.mark('setup');
  const beforeSetup = await quietSnapshot(s.state, 'before a setup step');
  const started = await s.pool.replenish();
  for (const id of started) track(id, TEST_KEYS.t1);
  if (s.state && beforeSetup)
    checkWrites(
      diff(beforeSetup, (await quietSnapshot(s.state, 'after a setup step'))!),
      new Set(started),
      true,
      [],
    );
}

/**
 * One batch of random requests over `CONCURRENCY` workers. Odd batches: every mutating request
 * spoiled, so the batch must write nothing at all; even ones may write only what they name or create.
 */
async function randomBatch(s: Session): Promise<void> {
  const refusalBatch = s.batchNo % 2 === 1;
  const n = Math.max(0, Math.min(BATCH, REQUESTS - stats.requests));
  const arbitrary = (refusalBatch ? refusalArbitrary : requestArbitrary)(s.pool.view(), TEST_KEYS);
  const requests = fc.sample(arbitrary, { numRuns: n, seed: SEED + s.batchNo++ });
  s.fair.mark(refusalBatch ? 'random batch (refusals)' : 'random batch');
  const before = s.state ? await s.state.snapshot() : undefined;
  const allowed = new Set<string>(['fuzz-external']);
  const accepted: FuzzRequest[] = [];
  let commandsAccepted = false;
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const r = requests[next++]!;
      const o = await send(s.target.base, r);
      stats.requests++;
      stats.byEndpoint.set(r.endpoint, (stats.byEndpoint.get(r.endpoint) ?? 0) + 1);
      if (o === 'hang') {
        stats.hangs++;
        record({ kind: 'hang', detail: `no answer within ${REQUEST_TIMEOUT_MS} ms`, request: brief(r) });
        continue;
      }
      if (o.status === 0) {
        stats.requests--; // the client refused to send it; nothing reached the host
        continue;
      }
      checkResponse(r, o);
      if (o.status >= 400 && o.status < 500) noteRefusal(r);
      noteCreated(r, o);
      if (refusalBatch && r.mutating && o.status < 400) {
        stats.acceptedRefusals++;
        record({
          kind: 'accepted-refusal',
          detail: `${o.status} to a request that must be refused: ${o.body.slice(0, 200)}`,
          request: brief(r),
        });
      }
      if (o.status >= 200 && o.status < 300 && (r.mutating || r.endpoint.startsWith('GET /v1/workflows'))) {
        commandsAccepted = true;
        if (r.mutating) {
          stats.acceptedMutations++;
          accepted.push(r);
        }
        for (const id of [...r.targets, ...createdIds(o)]) allowed.add(id);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  stats.batches++;
  if (refusalBatch) stats.refusalOnlyBatches++;
  if (s.state && before && !hostExit) {
    const changes = diff(before, (await quietSnapshot(s.state, 'after a batch'))!);
    if (refusalBatch) checkWrites(changes, new Set(), false, []);
    else checkWrites(changes, allowed, commandsAccepted, accepted);
  }
}

/**
 * The next `HOSTILE_BATCH` hostile requests (all refused, so the batch must write nothing), aimed
 * at a fresh approval run with a live token and the pool's clarification and terminal runs; sent
 * class by class.
 */
async function hostileBatch(s: Session): Promise<void> {
  const view = s.pool.view();
  const clarificationRun = view.clarificationRuns[0];
  const terminalRun = view.terminalRuns[0];
  // An approval run whose resolving token is still live: a fresh one of its own (the pool's
  // runs may have outlived their tokens, and a host shows none once they expired).
  const started = await api<{ runId: string }>(s.target.base, 'POST', '/v1/runs', {
    workflowId: 'conformance-approval',
  });
  const approvalRun = started.status === 201 ? started.json.runId : undefined;
  if (approvalRun) track(approvalRun, TEST_KEYS.t1);
  const token = approvalRun
    ? (await settle(s.ctx, approvalRun, TEST_KEYS.t1, undefined))?.interrupt?.interruptToken
    : undefined;
  if (!approvalRun || !clarificationRun || !terminalRun || !token) {
    record({
      kind: 'expectation',
      detail: `no hostile batch this round: no ${!approvalRun ? 'approval run' : !token ? 'resolving token on a fresh approval run' : !clarificationRun ? 'clarification run' : 'terminal run'} to aim it at`,
    });
    return;
  }
  const all = interleave(
    refusedHostileRequests(
      { approvalRun, clarificationRun, terminalRun, token },
      TEST_KEYS,
      s.limits,
      view.extraRoutes,
    ),
  );
  const n = Math.min(HOSTILE_BATCH, all.length);
  const batch = Array.from({ length: n }, (_, i) => all[(s.hostileOffset + i) % all.length]!);
  s.hostileOffset = (s.hostileOffset + n) % all.length;
  const before = await quietSnapshot(s.state, 'before a hostile batch');
  // Class by class (each with the usual concurrency), so the fairness figures say which class stalled others.
  for (const cls of HOSTILE_CLASSES) {
    const group = batch.filter((r) => r.cls === cls);
    if (!group.length) continue;
    s.fair.mark(`hostile batch: ${cls}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < group.length) await execHostile(s.target.base, group[next++]!);
      }),
    );
  }
  s.fair.mark(undefined);
  stats.hostileBatches++;
  stats.refusalOnlyBatches++;
  if (s.state && before && !hostExit)
    checkWrites(diff(before, (await quietSnapshot(s.state, 'after a hostile batch'))!), new Set(), false, []);
}

/** The stateful hostile classes of round `r` (the heavy ones every `HEAVY_EVERY`-th round); a scenario that breaks is an anomaly. */
async function scenarios(s: Session, r: number): Promise<void> {
  const { ctx } = s;
  const steps: [HostileClass, () => Promise<void>][] = [
    ['borrowed-authority', () => borrowedAuthority(ctx)],
    ['odd-numbers', () => oddNumbers(ctx, r)],
    ['proto-keys', () => protoKeys(ctx, r)],
    ['oversize-values', () => oversizeValues(ctx)],
    ...(r % HEAVY_EVERY === 0
      ? ([
          ['redos', () => redos(ctx)],
          ['parallel-workflow', () => parallelWorkflow(ctx, r)],
        ] as [HostileClass, () => Promise<void>][])
      : []),
  ];
  for (const [cls, run] of steps) {
    currentClass = cls;
    s.fair.mark(cls);
    try {
      await run();
    } catch (e) {
      if (hostExit) throw e;
      record({ kind: 'expectation', detail: `the ${cls} scenario could not go on: ${String(e)}` });
    } finally {
      currentClass = undefined;
    }
  }
}

// ------------------------------------------------------------------ the end

/** No run left unresolvable: every run the fuzzer made that has not ended is cancelled and must end. Returns how many could not be read back. */
async function cancelLeftovers(ctx: Ctx): Promise<number> {
  let unreadable = 0;
  const leftovers = [...tracked];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let item = leftovers.shift(); item; item = leftovers.shift()) {
        const [runId, key] = item;
        const s = await snapshot(ctx, runId, key);
        if (!s) {
          unreadable++;
          record({
            kind: 'unresolvable-run',
            detail: `run ${runId} (created with key ${KEY_NAMES.get(key)}) cannot be read back`,
          });
          continue;
        }
        if (isTerminalRunStatus(s.status)) continue;
        stats.runsCancelledAtEnd++;
        await cancelAndEnd(ctx, runId, key);
      }
    }),
  );
  return unreadable;
}

/** The fairness figures of the whole run (the watch stopped); p99s at or over the target are anomalies. */
function checkFairness(fair: FairnessWatch) {
  const probe = fair.probe();
  const loop = fair.eventLoop();
  const phases = fair.byPhase();
  const own = figures(fair.ownLoopP99);
  const contention = `; an idle fuzzer thread's own event-loop delay meanwhile: p99 ${own.p99} ms per 0.5-s window, so the machine's CPUs were ${own.p99 >= FAIRNESS_MS ? '' : 'not '}starved`;
  if (probe.p99 >= FAIRNESS_MS)
    record({
      kind: 'unfair',
      detail: `tenant t2's probe p99 was ${probe.p99} ms (max ${probe.max} ms) while tenant t1 sent hostile input (worst phases: ${phases
        .slice(0, 3)
        .map((ph) => `${ph.phase} p99 ${ph.probe.p99} ms`)
        .join('; ')}${contention}); the target is < ${FAIRNESS_MS} ms`,
    });
  if (loop && loop.p99 >= FAIRNESS_MS)
    record({
      kind: 'unfair',
      detail: `the host's event-loop delay p99 reached ${loop.p99} ms in a 1-s window (max ${loop.max} ms; worst phases: ${[
        ...phases,
      ]
        .sort((a, b) => (b.loopP99 ?? 0) - (a.loopP99 ?? 0))
        .slice(0, 3)
        .map((ph) => `${ph.phase} ${ph.loopP99 ?? '-'} ms`)
        .join('; ')}${contention}); the target is < ${FAIRNESS_MS} ms`,
    });
  if (fair.probeErrors)
    record({
      kind: 'unfair',
      detail: `tenant t2's probe failed ${fair.probeErrors} time(s): ${fair.probeFailures.join('; ')}`,
    });
  return { probe, loop, phases, own };
}

type Fairness = ReturnType<typeof checkFairness>;

/** Everything the run found, as printed and as the `--json` line carries it. */
async function summarize(
  s: Session,
  routes: Routes,
  fairness: Fairness,
  unreadable: number,
  loadAtStart: number[],
) {
  const { target, state, fair } = s;
  const { host } = target;
  const seconds = Math.round((Date.now() - s.t0) / 100) / 10;
  const byStatus = Object.fromEntries([...stats.byStatus].sort(([a], [b]) => a - b));
  const counts = state ? await state.counts() : undefined;
  const anomaliesByKind: Record<string, number> = {};
  for (const a of anomalies) anomaliesByKind[a.kind] = (anomaliesByKind[a.kind] ?? 0) + 1;
  const classes = Object.fromEntries([...byClass].map(([c, v]) => [c, v]));
  return {
    requests: stats.requests,
    seconds,
    seed: SEED,
    mode: host ? host.mode : 'external',
    target: host
      ? `${host.mode} host (Postgres${host.mode === 'distributed' ? ', Kafka' : ''})`
      : target.base,
    endpointsCovered: `${stats.byEndpoint.size} request kinds over ${routes.total} routes (${routes.extra.length} from OpenAPI only${routes.extra.length ? `: ${routes.extra.join(', ')}` : ''})`,
    byStatus,
    fiveXx: stats.fiveXx,
    envelopeViolations: stats.envelopeViolations,
    unintendedWrites: state ? stats.unintendedWrites : 'not checked (no --database-url)',
    acceptedRefusals: stats.acceptedRefusals,
    hangs: stats.hangs,
    hostRestarts: stats.hostRestarts,
    batches: stats.batches,
    hostileBatches: stats.hostileBatches,
    refusalOnlyBatches: stats.refusalOnlyBatches,
    acceptedMutations: stats.acceptedMutations,
    rowsChangedAsIntended: stats.rowsChangedAsIntended,
    tableRows: counts,
    byClass: classes,
    runs: { tracked: stats.runsTracked, cancelledAtEnd: stats.runsCancelledAtEnd, unreadable },
    deadLetters: target.metricsUrls.length
      ? { counted: stats.deadLetters, matched: stats.deadLettersMatched }
      : 'not checked (no metrics URL)',
    logScanned: target.logs.watching
      ? { bytes: stats.logBytesScanned, secrets: Object.keys(TEST_KEYS).length + secrets.size }
      : 'not checked (host not started here)',
    machineLoad: {
      start: loadAtStart,
      end: loadavg(),
      cpus: cpus().length,
      idleThreadLoopDelayWindowsP99Ms: figures(fair.ownLoopP99),
    },
    fairness: {
      probe: fairness.probe,
      eventLoop: fairness.loop ?? 'not exported by the host',
      probeErrors: fair.probeErrors,
      targetMs: FAIRNESS_MS,
      byPhase: fairness.phases,
      worstEventLoopByProcess: Object.fromEntries(
        Object.entries(fair.worstByUrl).map(([u, ms]) => [target.processOf.get(u) ?? u, ms]),
      ),
      slowestHostile: slowest.map((x) => ({ ...x, request: redact(x.request) })),
    },
    anomaliesByKind,
    timingNotes: notes.map((n) => `${n.kind}: ${redact(n.detail)}`),
    anomalies: anomalies.length,
    reachedTarget: stats.requests >= REQUESTS,
  };
}

type Summary = Awaited<ReturnType<typeof summarize>>;

/** The summary for a person, on stdout. */
function printSummary(summary: Summary, fairness: Fairness, byEndpoint: Record<string, number>): void {
  const { probe, loop, phases, own } = fairness;
  const fmt = (f: Figures | undefined) =>
    f ? `p50 ${f.p50} ms, p99 ${f.p99} ms, max ${f.max} ms (n=${f.n})` : 'not exported by the host';
  console.log('fuzz summary');
  console.log(
    `  requests:             ${summary.requests} in ${summary.seconds} s (seed ${SEED}, ${summary.target})`,
  );
  console.log(`  endpoints:            ${summary.endpointsCovered}`);
  console.log(
    `  by status:            ${Object.entries(summary.byStatus)
      .map(([s, c]) => `${s}=${c}`)
      .join(' ')}`,
  );
  console.log(`  5xx:                  ${summary.fiveXx}`);
  console.log(`  envelope violations:  ${summary.envelopeViolations}`);
  console.log(
    `  unintended writes:    ${summary.unintendedWrites} (batches ${summary.batches} random + ${summary.hostileBatches} hostile: ${summary.refusalOnlyBatches} of refusals only, which must write nothing; accepted mutations ${summary.acceptedMutations}, rows they changed ${summary.rowsChangedAsIntended})`,
  );
  console.log(`  accepted refusals:    ${summary.acceptedRefusals} (spoiled requests answered 2xx)`);
  console.log(`  hangs:                ${summary.hangs}`);
  if (summary.hostRestarts)
    console.log(
      `  host restarts:        ${summary.hostRestarts} (stopped from outside; the batch in flight was not write-checked)`,
    );
  console.log('  hostile classes:      requests, statuses, anomalies');
  for (const [c, v] of byClass)
    console.log(
      `    ${c.padEnd(20)} ${String(v.requests).padStart(5)}  ${Object.entries(v.byStatus)
        .map(([s, k]) => `${s}=${k}`)
        .join(' ')
        .padEnd(40)} ${v.anomalies}`,
    );
  console.log(
    `  runs:                 ${stats.runsTracked} made, ${stats.runsCancelledAtEnd} still open at the end and cancelled, ${summary.runs.unreadable} unreadable`,
  );
  console.log(
    `  dead letters:         ${typeof summary.deadLetters === 'string' ? summary.deadLetters : `${stats.deadLetters} counted, ${stats.deadLettersMatched} matched by a refusal`}`,
  );
  console.log(
    `  host log:             ${typeof summary.logScanned === 'string' ? summary.logScanned : `${Math.round(stats.logBytesScanned / 1024)} KiB scanned for ${summary.logScanned.secrets} secrets (4 API keys, ${secrets.size} resolving tokens)`}`,
  );
  console.log(
    `  fairness probe:       tenant t2 GET /v1/runs?limit=1 every 20 ms: ${fmt(probe)}${summary.fairness.probeErrors ? `, ${summary.fairness.probeErrors} failed` : ''}`,
  );
  console.log(
    `  event-loop delay:     ${loop ? `host, per 1-s window: median p50 ${loop.p50} ms, worst p99 ${loop.p99} ms, max ${loop.max} ms (${loop.n} windows)` : fmt(undefined)} (target p99 < ${FAIRNESS_MS} ms)`,
  );
  console.log('  fairness by phase:    probe p50/p99/max (n), worst event-loop window p99');
  for (const ph of phases)
    console.log(
      `    ${ph.phase.slice(0, 40).padEnd(40)} ${ph.probe.n ? `${ph.probe.p50}/${ph.probe.p99}/${ph.probe.max} ms` : '-'} (${ph.probe.n})  ${ph.loopP99 ?? '-'} ms`,
    );
  const byProcess = Object.entries(summary.fairness.worstEventLoopByProcess);
  if (byProcess.length > 1)
    console.log(
      `  event loop by process: worst window p99 ${byProcess.map(([name, ms]) => `${name} ${ms} ms`).join(', ')}`,
    );
  console.log(
    `  machine contention:   event-loop delay of an idle fuzzer thread (p99 per 0.5-s window): median ${own.p50} ms, p99 ${own.p99} ms, max ${own.max} ms (${own.n} windows); the CPU wait no host causes`,
  );
  const { start, end, cpus: cpuCount } = summary.machineLoad;
  console.log(
    `  machine load:         ${start.map((x) => x.toFixed(1)).join(' ')} at the start, ${end
      .map((x) => x.toFixed(1))
      .join(
        ' ',
      )} at the end (1/5/15-min load average, ${cpuCount} CPUs; latencies include waiting for a CPU)`,
  );
  console.log('  slowest hostile requests:');
  for (const x of slowest)
    console.log(`    ${String(x.ms).padStart(6)} ms ${x.status} [${x.cls}] ${redact(x.request)}`);
  console.log(
    `  anomalies:            ${summary.anomalies}${
      anomalies.length
        ? ` (${Object.entries(summary.anomaliesByKind)
            .map(([k, n]) => `${k}=${n}`)
            .join(' ')})`
        : ''
    }`,
  );
  for (const n of notes) console.log(`  timing note:          ${n.kind}: ${redact(n.detail).slice(0, 300)}`);
  if (!summary.reachedTarget)
    console.log(`  (time bound of ${MAX_SECONDS} s reached before ${REQUESTS} requests)`);
  if (!JSON_OUT)
    console.log(
      `  per endpoint:         ${Object.entries(byEndpoint)
        .map(([e, c]) => `${e}=${c}`)
        .join(', ')}`,
    );
}

/** Writes every anomaly (redacted) to `.infra/fuzz/anomalies-<mode>.jsonl`; returns the file. */
function writeAnomalies(mode: string): string {
  const dir = resolve(REPO_ROOT, '.infra/fuzz');
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `anomalies-${mode}.jsonl`);
  writeFileSync(file, anomalies.map((a) => redact(JSON.stringify(a))).join('\n') + '\n');
  return file;
}

// ------------------------------------------------------------------ main

/** Starts (or finds) the target, fuzzes it round by round, sweeps up, reports. Exits 1 on any anomaly. */
async function main(): Promise<number> {
  const t0 = Date.now();
  const loadAtStart = loadavg();
  const target = await startTarget();
  const state = target.dbUrl ? await DbState.connect(target.dbUrl) : undefined;
  const fair = new FairnessWatch(target.base, TEST_KEYS.t2, target.metricsUrls);
  let fairStarted = false;
  try {
    const ctx = contextFor(target.base);
    ctxFor = () => ctx;
    const pool = new LivePool(target.base);
    const checks = new LogChecks(target.logs, fair, target.metricsUrls);
    const { routes, limits } = await setUp(target.base, pool, ctx);
    await fair.scrape();
    fair.resetWindows();
    fair.start();
    fairStarted = true;
    const session: Session = {
      t0,
      target,
      state,
      fair,
      checks,
      pool,
      ctx,
      limits,
      batchNo: 0,
      round: 0,
      hostileOffset: 0,
    };
    await fuzzRounds(session);

    fair.mark('final cancel sweep');
    const unreadable = await cancelLeftovers(ctx);
    await fair.stop();
    fairStarted = false;
    checks.scan();
    await checks.checkDeadLetters();
    const fairness = checkFairness(fair);

    if (!JSON_OUT) process.stderr.write('\n');
    const summary = await summarize(session, routes, fairness, unreadable, loadAtStart);
    const byEndpoint = Object.fromEntries([...stats.byEndpoint].sort());
    printSummary(summary, fairness, byEndpoint);
    if (anomalies.length) console.log(`  details:              ${writeAnomalies(summary.mode)}`);
    if (JSON_OUT) console.log(`FUZZ_RESULT ${JSON.stringify({ ...summary, byEndpoint })}`);
    return anomalies.length ? 1 : 0;
  } finally {
    if (fairStarted) await fair.stop().catch(() => undefined);
    await state?.close();
    await target.host?.stop();
    await target.db?.drop();
  }
}

let hostExit = '';

/** Notes the exit of the embedded host process (a SIGTERM from outside, a crash). */
function watch(p: AppProcess): void {
  p.child.once('exit', (code, signal) => (hostExit = `(exited: ${signal ?? code}; log ${p.logFile})`));
}
process.exitCode = await main().catch((e: unknown) => {
  console.error('fuzz failed:', e, hostExit);
  return 2;
});
