/**
 * `npm run fuzz` — sends schema-aware random and malformed requests to every gateway endpoint and
 * checks: no 5xx; every 4xx carries the spec's error envelope (error-envelope.schema.json); a batch
 * of refusals writes nothing (row digests of every service table before and after); an accepted
 * request writes only rows of the runs and workflows it names or creates.
 *
 * Starts its own embedded host on a fresh Postgres database, or targets `--url` (then
 * `--database-url` enables the write checks). Options (or env): --requests N (FUZZ_REQUESTS, 10000),
 * --max-seconds S (FUZZ_MAX_SECONDS, 900), --batch B (200), --concurrency C (8), --seed X,
 * --json (one `FUZZ_RESULT {...}` line at the end). Exits 1 on any anomaly.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { createTestDatabase, REPO_ROOT, startEmbeddedHost, TEST_KEYS, type AppProcess, type RunningHost, type TestDatabase } from '@openwop/testing';
import { DbState, diff, type RowChange } from './db-state.mts';
import { externalEventWorkflow } from '../lib/workflows.mts';
import { COVERED_ROUTES, refusalArbitrary, requestArbitrary, type FuzzRequest, type Pool } from './requests.mts';

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
const JSON_OUT = process.argv.includes('--json');
/** A request that takes longer than this hangs (the longest legitimate wait is a 1 s long poll). */
const REQUEST_TIMEOUT_MS = 20_000;

const envelopeSchema = JSON.parse(readFileSync(resolve(REPO_ROOT, 'libs/contracts/src/schemas/error-envelope.schema.json'), 'utf8')) as object;
const validateEnvelope = new Ajv2020({ strict: false }).compile(envelopeSchema);

// ------------------------------------------------------------------ results

interface Anomaly {
  readonly kind: '5xx' | 'envelope' | 'unintended-write' | 'accepted-refusal' | 'hang' | 'not-quiet';
  readonly detail: string;
  readonly request?: Pick<FuzzRequest, 'endpoint' | 'method' | 'path'> & { body?: string; headers?: Record<string, string> };
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
};
const anomalies: Anomaly[] = [];

function record(a: Anomaly): void {
  anomalies.push(a);
  if (anomalies.length <= 20) console.error(`ANOMALY ${a.kind}: ${a.detail}${a.request ? ` — ${a.request.method} ${a.request.path.slice(0, 200)}` : ''}`);
}

const brief = (r: FuzzRequest) => ({
  endpoint: r.endpoint,
  method: r.method,
  path: r.path.slice(0, 500),
  headers: r.headers,
  ...(r.body !== undefined ? { body: r.body.slice(0, 500) } : {}),
});

// ------------------------------------------------------------------ HTTP

interface Outcome {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
}

async function send(base: string, r: FuzzRequest): Promise<Outcome | 'hang'> {
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

async function api<T>(base: string, method: string, path: string, body?: unknown, key: string = TEST_KEYS.t1): Promise<{ status: number; json: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
}

// ------------------------------------------------------------------ the pool of live ids

const SAFE_WORKFLOWS = ['conformance-approval', 'conformance-clarification', 'conformance-noop', 'conformance-approval-reject-routed', 'conformance-approval-reject-loopback', 'fuzz-external'];

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
        if (status !== 201) throw new Error(`setup: POST /v1/runs ${workflowId} → ${status} ${JSON.stringify(json)}`);
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
      const { status, json } = await api<{ runStatus: string; nextAfter: number }>(this.base, 'GET', `/v1/runs/${runId}/events/poll?after=${after}&timeoutMs=1000`);
      if (status === 200 && json.runStatus !== 'running' && json.runStatus !== 'pending') return json.runStatus;
      if (status === 200) after = json.nextAfter;
    }
    throw new Error(`setup: run ${runId} did not settle within 20 s`);
  }

  private async collectTokens(runId: string): Promise<void> {
    const { json } = await api<{ interrupt?: { interruptToken?: string; inspectToken?: string } }>(this.base, 'GET', `/v1/runs/${runId}`);
    for (const token of [json.interrupt?.interruptToken, json.interrupt?.inspectToken]) if (token) this.tokens.push({ token, runId });
  }

  /** Moves runs that ended (or moved on) out of the waiting sets. */
  async refresh(): Promise<void> {
    const next: LiveRun[] = [];
    for (const r of this.runs) {
      if (r.kind === 'terminal') {
        next.push(r);
        continue;
      }
      const { status, json } = await api<{ status: string }>(this.base, 'GET', `/v1/runs/${r.runId}`);
      if (status !== 200) continue;
      if (['completed', 'failed', 'cancelled'].includes(json.status)) next.push({ runId: r.runId, kind: 'terminal' });
      else if (json.status.startsWith('waiting')) next.push(r);
    }
    const terminal = next.filter((r) => r.kind === 'terminal');
    this.runs = [...next.filter((r) => r.kind !== 'terminal'), ...terminal.slice(-20)];
    this.tokens = this.tokens.slice(-60);
  }

  /** Routes of the host's OpenAPI document without a dedicated generator. */
  async discoverRoutes(): Promise<{ total: number; extra: string[] }> {
    const { json } = await api<{ paths: Record<string, Record<string, unknown>> }>(this.base, 'GET', '/v1/openapi.json');
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

function checkResponse(r: FuzzRequest, o: Outcome): void {
  stats.byStatus.set(o.status, (stats.byStatus.get(o.status) ?? 0) + 1);
  if (o.status >= 500) {
    stats.fiveXx++;
    record({ kind: '5xx', detail: `${o.status} ${o.body.slice(0, 300)}`, request: brief(r) });
  }
  if (o.status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(o.body);
    } catch {
      parsed = undefined;
    }
    const ok = o.contentType.startsWith('application/json') && parsed !== undefined && validateEnvelope(parsed);
    if (!ok) {
      stats.envelopeViolations++;
      record({ kind: 'envelope', detail: `${o.status} ${o.contentType} ${o.body.slice(0, 300)}`, request: brief(r) });
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

function checkWrites(changes: RowChange[], allowed: Set<string>, commandsAccepted: boolean, sample: FuzzRequest[]): void {
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

// ------------------------------------------------------------------ main

async function main(): Promise<number> {
  const t0 = Date.now();
  let host: RunningHost | undefined;
  let db: TestDatabase | undefined;
  let base = URL_OPT;
  let dbUrl = DB_OPT;
  if (!base) {
    db = await createTestDatabase('fuzz');
    dbUrl = db.url;
    host = await startEmbeddedHost({ databaseUrl: db.url });
    base = host.gateways[0]!;
    watch(host.processes[0]!);
  }
  const state = dbUrl ? await DbState.connect(dbUrl) : undefined;
  const stop = async () => {
    await state?.close();
    await host?.stop();
    await db?.drop();
  };
  try {
    const pool = new LivePool(base);
    const routes = await pool.discoverRoutes();
    const reg = await api(base, 'POST', '/v1/workflows', EXTERNAL_WORKFLOW);
    if (reg.status !== 201) throw new Error(`setup: register ${EXTERNAL_WORKFLOW.id} → ${reg.status}`);
    const deadline = t0 + MAX_SECONDS * 1000;
    let batchNo = 0;
    while (stats.requests < REQUESTS && Date.now() < deadline) {
      // Something outside stopped the embedded host (its data is in Postgres): start it again on the
      // same port and database; a batch it died in is not write-checked.
      if (host && hostExit) {
        console.error(`\nthe embedded host stopped ${hostExit}; restarting it`);
        stats.hostRestarts++;
        hostExit = '';
        watch(await host.restart('embedded'));
        if (state) await state.refreshTables();
      }
      try {
        await oneRound();
      } catch (e) {
        if (!hostExit) throw e;
      }
    }
    async function oneRound(): Promise<void> {
      // Setup (valid requests, checked too: they may only write the runs they start).
      if (state && !(await state.quiesce())) record({ kind: 'not-quiet', detail: 'the host kept writing for 15 s before a setup step' });
      const beforeSetup = state ? await state.snapshot() : undefined;
      const started = await pool.replenish();
      if (state && beforeSetup) {
        if (!(await state.quiesce())) record({ kind: 'not-quiet', detail: 'the host kept writing for 15 s after a setup step' });
        checkWrites(diff(beforeSetup, await state.snapshot()), new Set(started), true, []);
      }

      // One batch of fuzz requests.
      // Odd batches: every mutating request spoiled, so the batch must write nothing at all.
      const refusalBatch = batchNo % 2 === 1;
      const n = Math.min(BATCH, REQUESTS - stats.requests);
      const arbitrary = (refusalBatch ? refusalArbitrary : requestArbitrary)(pool.view(), TEST_KEYS);
      const requests = fc.sample(arbitrary, { numRuns: n, seed: SEED + batchNo++ });
      const before = state ? await state.snapshot() : undefined;
      const allowed = new Set<string>(['fuzz-external']);
      const accepted: FuzzRequest[] = [];
      let commandsAccepted = false;
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const r = requests[next++]!;
          const o = await send(base, r);
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
          if (refusalBatch && r.mutating && o.status < 400) {
            stats.acceptedRefusals++;
            record({ kind: 'accepted-refusal', detail: `${o.status} to a request that must be refused: ${o.body.slice(0, 200)}`, request: brief(r) });
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
      if (state && before && !hostExit) {
        if (!(await state.quiesce())) record({ kind: 'not-quiet', detail: 'the host kept writing for 15 s after a batch' });
        const changes = diff(before, await state.snapshot());
        if (refusalBatch) checkWrites(changes, new Set(), false, []);
        else checkWrites(changes, allowed, commandsAccepted, accepted);
      }
      if (hostExit) return;
      await pool.refresh();
      if (!JSON_OUT) process.stderr.write(`\r${stats.requests} requests, ${anomalies.length} anomalies, ${Math.round((Date.now() - t0) / 1000)} s `);
    }
    if (!JSON_OUT) process.stderr.write('\n');
    const seconds = Math.round((Date.now() - t0) / 100) / 10;
    const byStatus = Object.fromEntries([...stats.byStatus].sort(([a], [b]) => a - b));
    const byEndpoint = Object.fromEntries([...stats.byEndpoint].sort());
    const counts = state ? await state.counts() : undefined;
    const summary = {
      requests: stats.requests,
      seconds,
      seed: SEED,
      target: host ? 'embedded host (Postgres)' : base,
      endpointsCovered: `${stats.byEndpoint.size} request kinds over ${routes.total} routes (${routes.extra.length} from OpenAPI only${routes.extra.length ? `: ${routes.extra.join(', ')}` : ''})`,
      byStatus,
      fiveXx: stats.fiveXx,
      envelopeViolations: stats.envelopeViolations,
      unintendedWrites: state ? stats.unintendedWrites : 'not checked (no --database-url)',
      acceptedRefusals: stats.acceptedRefusals,
      hangs: stats.hangs,
      hostRestarts: stats.hostRestarts,
      batches: stats.batches,
      refusalOnlyBatches: stats.refusalOnlyBatches,
      acceptedMutations: stats.acceptedMutations,
      rowsChangedAsIntended: stats.rowsChangedAsIntended,
      tableRows: counts,
      anomalies: anomalies.length,
      reachedTarget: stats.requests >= REQUESTS,
    };
    console.log('fuzz summary');
    console.log(`  requests:             ${summary.requests} in ${seconds} s (seed ${SEED}, ${summary.target})`);
    console.log(`  endpoints:            ${summary.endpointsCovered}`);
    console.log(`  by status:            ${Object.entries(byStatus).map(([s, c]) => `${s}=${c}`).join(' ')}`);
    console.log(`  5xx:                  ${summary.fiveXx}`);
    console.log(`  envelope violations:  ${summary.envelopeViolations}`);
    console.log(`  unintended writes:    ${summary.unintendedWrites} (batches ${summary.batches}: ${summary.refusalOnlyBatches} of refusals only, which must write nothing; accepted mutations ${summary.acceptedMutations}, rows they changed ${summary.rowsChangedAsIntended})`);
    console.log(`  accepted refusals:    ${summary.acceptedRefusals} (spoiled requests answered 2xx)`);
    console.log(`  hangs:                ${summary.hangs}`);
    if (summary.hostRestarts) console.log(`  host restarts:        ${summary.hostRestarts} (stopped from outside; the batch in flight was not write-checked)`);
    console.log(`  anomalies:            ${summary.anomalies}`);
    if (!summary.reachedTarget) console.log(`  (time bound of ${MAX_SECONDS} s reached before ${REQUESTS} requests)`);
    if (!JSON_OUT) console.log(`  per endpoint:         ${Object.entries(byEndpoint).map(([e, c]) => `${e}=${c}`).join(', ')}`);
    if (anomalies.length) {
      const dir = resolve(REPO_ROOT, '.infra/fuzz');
      mkdirSync(dir, { recursive: true });
      writeFileSync(resolve(dir, 'anomalies.jsonl'), anomalies.map((a) => JSON.stringify(a)).join('\n') + '\n');
      console.log(`  details:              ${resolve(dir, 'anomalies.jsonl')}`);
    }
    if (JSON_OUT) console.log(`FUZZ_RESULT ${JSON.stringify({ ...summary, byEndpoint })}`);
    return anomalies.length ? 1 : 0;
  } finally {
    await stop();
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
