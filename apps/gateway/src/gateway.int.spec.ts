import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  assertErrorEnvelope,
  SEEDED_FIXTURES,
  Topics,
  type CommandReply,
  type RunEventDoc,
  type StartRunCommand,
  type StartRunResult,
} from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKeyRegistry } from './auth/api-key-registry.factory';
import { configureGatewayApp } from './configure-gateway-app';
import { servedRoutes } from './discovery/served-routes';
import { GatewayModule } from './gateway.module';

// The gateway over the real in-process platform (in-process bus, a fresh Postgres database, the
// Postgres LISTEN feed). No engine runs: a fake engine served on the engine command topic writes
// the projected rows a real engine + projector would, so the read-your-writes path is exercised.

const KEYS = {
  t1: 'gw_test_t1_' + 'a'.repeat(24),
  t2: 'gw_test_t2_' + 'b'.repeat(24),
  readonly: 'gw_test_ro_' + 'c'.repeat(24),
  none: 'gw_test_no_' + 'd'.repeat(24),
};
const API_KEYS = JSON.stringify([
  { key: KEYS.t1, scopes: ['runs:create', 'runs:read'], tenant: 't1', id: 'key-t1' },
  { key: KEYS.t2, scopes: ['runs:create', 'runs:read'], tenant: 't2', id: 'key-t2' },
  { key: KEYS.readonly, scopes: ['runs:read'], tenant: 't1', id: 'key-ro' },
  { key: KEYS.none, scopes: ['packs:publish'], tenant: 't1', id: 'key-none' },
]);
const WORKFLOW = SEEDED_FIXTURES[0]!.id;
const SLOW_WORKFLOW = 'gateway-test-slow';

let db: TestDatabase;
let platform: Platform;
let app: NestExpressApplication;
let base: string;
const savedKeys = process.env.WOP_API_KEYS;

async function fakeEngine(message: IncomingMessage): Promise<CommandReply<StartRunResult>> {
  const command = message.value as StartRunCommand;
  const { runId, workflowId } = command.data;
  if (workflowId === SLOW_WORKFLOW) {
    await new Promise((r) => setTimeout(r, 1_500));
    return { ok: false, error: { code: 'workflow_not_found', message: 'late' } };
  }
  if (workflowId !== WORKFLOW)
    return { ok: false, error: { code: 'workflow_not_found', message: `no workflow ${workflowId}` } };
  const now = new Date().toISOString();
  const snapshot = {
    runId,
    workflowId,
    status: 'running',
    owner: command.actor,
    createdAt: now,
    updatedAt: now,
    lastSequence: 0,
  };
  await platform.dataSource.query(
    `INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
     VALUES ($1, $2, $3, 'running', NULL, 0, $4, now(), now())`,
    [runId, command.actor.tenant, workflowId, JSON.stringify(snapshot)],
  );
  await appendEvent(runId, 0, 'run.started', { workflowId, owner: command.actor });
  return { ok: true, data: { runId, status: 'running', lastSequence: 0 } };
}

async function appendEvent(
  runId: string,
  sequence: number,
  type: RunEventDoc['type'],
  payload: unknown,
  status?: string,
): Promise<void> {
  const doc: RunEventDoc = {
    eventId: `${runId}:${sequence}`,
    runId,
    type,
    payload,
    timestamp: new Date().toISOString(),
    sequence,
  };
  await platform.dataSource.query(
    `INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc) VALUES ($1, $2, $3, $4, NULL, $5)`,
    [doc.eventId, runId, sequence, type, JSON.stringify(doc)],
  );
  await platform.dataSource.query(
    `UPDATE runs SET last_sequence = $2, status = COALESCE($3, status),
       snapshot = snapshot || jsonb_build_object('lastSequence', $2::int, 'status', COALESCE($3, status)) WHERE run_id = $1`,
    [runId, sequence, status ?? null],
  );
  await platform.feed.publishedAll([{ runId, sequence }]);
}

/** The JSON bodies these tests read; every field optional, the assertions check presence. */
interface Body {
  readonly [key: string]: unknown;
  readonly error?: string;
  readonly message?: string;
  readonly details?: {
    readonly errors?: readonly { readonly path: string }[];
    readonly [key: string]: unknown;
  };
  readonly events?: readonly RunEventDoc[];
  readonly runId?: string;
  readonly nextAfter?: number;
  readonly fixtures?: readonly string[];
  readonly auth?: { readonly scopes?: readonly string[] };
  readonly endpoints?: readonly unknown[];
  readonly paths?: Readonly<Record<string, unknown>>;
}

function auth(key: string = KEYS.t1): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

async function call(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; raw?: string } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: Body = {};
  try {
    json = JSON.parse(text) as Body;
  } catch {
    // not JSON: the assertions on `json` fail with a readable diff
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Asserts the spec envelope (exactly error/message/details) with the given status and code. */
function expectEnvelope(res: { status: number; json: Body }, status: number, code: string): Body {
  expect({ status: res.status, code: res.json.error }).toEqual({ status, code });
  assertErrorEnvelope(res.json);
  return res.json;
}

async function runCount(): Promise<number> {
  const rows: { n: string }[] = await platform.dataSource.query('SELECT count(*)::text AS n FROM runs');
  return Number(rows[0]!.n);
}

/** Reads SSE frames until the server closes the stream (or `timeoutMs`). */
async function readSse(path: string, headers: Record<string, string>, timeoutMs = 10_000) {
  const res = await fetch(`${base}${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const frames = text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      return { id: field('id'), event: field('event'), data: JSON.parse(field('data')!) };
    });
  return { status: res.status, contentType: res.headers.get('content-type'), frames };
}

beforeAll(async () => {
  db = await createTestDatabase('gateway');
  process.env.WOP_API_KEYS = API_KEYS;
  platform = await startPlatform(
    readHostConfig('embedded', {
      OPENWOP_DATA_DIR: 'memory',
      DATABASE_URL: db.url,
      COMMAND_TIMEOUT_MS: '700',
      PUBLIC_URL: 'http://gateway.test',
      KAFKA_PARTITIONS: '2',
    }),
  );
  await platform.bus.serve({ group: 'engine', topic: Topics.engineCommands, handler: fakeEngine });
  app = await NestFactory.create<NestExpressApplication>(rootModule(platform, [GatewayModule]), {
    logger: ['error'],
  });
  configureGatewayApp(app);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await db?.drop();
  if (savedKeys === undefined) delete process.env.WOP_API_KEYS;
  else process.env.WOP_API_KEYS = savedKeys;
}, 30_000);

describe('health and discovery (no credentials)', () => {
  it('answers /healthz and /readyz', async () => {
    expect((await call('GET', '/healthz')).json).toEqual({ status: 'ok' });
    const ready = await call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', checks: { bus: 'up', database: 'up' } });
  });

  it('serves the discovery document with capability families at the root', async () => {
    const res = await call('GET', '/.well-known/openwop');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      protocol: 'openwop',
      specVersion: '1.1',
      implementation: { name: 'openwop-host' },
      supportedEnvelopes: ['clarification.request'],
      conversationPrimitive: true,
      multiPartyConversation: { supported: true, maxParticipants: 8 },
      capabilities: {
        conversationPrimitive: true,
        multiPartyConversation: { supported: true, maxParticipants: 8 },
      },
      replay: { supported: true, modes: ['replay', 'branch'] },
      auth: { schemes: ['bearer'] },
      streamModes: ['updates', 'values', 'messages', 'debug'],
    });
    expect(res.json.fixtures).toEqual(SEEDED_FIXTURES.map((f) => f.id));
    expect(res.json.auth?.scopes).toContain('approvals:respond');
    expect(res.json.endpoints).toContainEqual({ method: 'POST', path: '/v1/runs', scope: 'runs:create' });
  });

  it('serves its OpenAPI document at /v1/openapi.json', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.paths!)).toEqual(
      expect.arrayContaining([
        '/v1/runs',
        '/v1/runs/{runId}',
        '/v1/runs/{runId}/events',
        '/v1/runs/{runId}/events/poll',
      ]),
    );
  });

  it('documents exactly the routes the router dispatches, each with its method, and discovery lists the same', async () => {
    const served = servedRoutes(app)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const doc = (await call('GET', '/v1/openapi.json')).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(served);
    const listed = (
      (await call('GET', '/.well-known/openwop')).json.endpoints as { method: string; path: string }[]
    )
      .map((e) => `${e.method} ${e.path}`)
      .sort();
    expect(listed).toEqual(served);
  });

  it('documents each keyed route with the scope its guard enforces', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).json as {
      paths: Record<string, Record<string, { security: Record<string, string[]>[] }>>;
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const scopes = op.security[0]?.ApiKeyAuth ?? [];
        if (scopes.length === 0) continue;
        // A key holding none of the route's scopes is refused naming the first documented one.
        const res = await call(method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x'), {
          headers: auth(KEYS.none),
        });
        expect({ path, status: res.status, scope: res.json.details?.scopeRequired }).toEqual({
          path,
          status: 403,
          scope: scopes[0],
        });
      }
    }
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).json;
    // The validator is an ES module; it runs in a child process that reads the document on stdin.
    const script =
      "import { Validator } from '@seriousme/openapi-schema-validator'; let s = ''; for await (const c of process.stdin) s += c; " +
      'const v = new Validator(); const r = await v.validate(JSON.parse(s)); console.log(JSON.stringify({ valid: r.valid, version: v.version, errors: r.errors ?? [] }));';
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      input: JSON.stringify(doc),
      encoding: 'utf8',
      cwd: process.cwd(),
    });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ valid: true, version: '3.1', errors: [] });
  });
});

describe('bad input gets the envelope and writes nothing', () => {
  afterAll(async () => {
    expect(await runCount()).toBe(0);
  });

  it('401 without, with a malformed, or with an unknown key', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      auth('not-a-configured-key-at-all'),
    ]) {
      const res = await call('POST', '/v1/runs', { headers, body: { workflowId: WORKFLOW } });
      expectEnvelope(res, 401, 'unauthenticated');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expectEnvelope(await call('GET', '/v1/runs/x'), 401, 'unauthenticated');
  });

  it('403 with details.scopeRequired for a key without the scope', async () => {
    const body = expectEnvelope(
      await call('POST', '/v1/runs', { headers: auth(KEYS.readonly), body: { workflowId: WORKFLOW } }),
      403,
      'forbidden',
    );
    expect(body.details).toEqual({ scopeRequired: 'runs:create' });
  });

  it('400 for malformed JSON', async () => {
    const body = expectEnvelope(
      await call('POST', '/v1/runs', { headers: auth(), raw: '{"workflowId": ' }),
      400,
      'validation_error',
    );
    expect(body.message).toMatch(/JSON/);
  });

  it.each([
    ['a missing workflowId', {}, '/workflowId'],
    ['an empty workflowId', { workflowId: '' }, '/workflowId'],
    ['a workflowId over 200 characters', { workflowId: 'w'.repeat(201) }, '/workflowId'],
    ['an unknown field', { workflowId: WORKFLOW, extra: 1 }, '/extra'],
    ['inputs that are not an object', { workflowId: WORKFLOW, inputs: [1] }, '/inputs'],
    ['tags that are not strings', { workflowId: WORKFLOW, tags: ['a', 2] }, '/tags'],
    ['a body that is an array', [{ workflowId: WORKFLOW }], undefined],
  ])('400 validation_error for %s', async (_what, payload, path) => {
    const body = expectEnvelope(
      await call('POST', '/v1/runs', { headers: auth(), body: payload }),
      400,
      'validation_error',
    );
    expect(Array.isArray(body.details?.errors)).toBe(true);
    if (path) expect(body.details!.errors!.map((e) => e.path)).toContain(path);
  });

  it('400 validation_error naming an unknown workflowId', async () => {
    const body = expectEnvelope(
      await call('POST', '/v1/runs', { headers: auth(), body: { workflowId: 'no-such-workflow' } }),
      400,
      'validation_error',
    );
    expect(body.details?.workflowId).toBe('no-such-workflow');
  });

  it('403 when tenantId names another tenant', async () => {
    expectEnvelope(
      await call('POST', '/v1/runs', { headers: auth(), body: { workflowId: WORKFLOW, tenantId: 't2' } }),
      403,
      'forbidden',
    );
  });

  it('404 for unknown routes under /v1 and on the unversioned (v2) path space; /runs is the v2 twin of /v1/runs', async () => {
    expectEnvelope(await call('GET', '/v1/nothing-here', { headers: auth() }), 404, 'not_found');
    expectEnvelope(await call('DELETE', '/v1/runs', { headers: auth() }), 404, 'not_found');
    expectEnvelope(await call('GET', '/nothing-here', { headers: auth() }), 404, 'not_found');
    expectEnvelope(await call('GET', '/'), 404, 'not_found');
    expectEnvelope(await call('GET', '/runs'), 401, 'unauthenticated');
  });

  it('404 for a run that does not exist, on every read route', async () => {
    for (const path of ['/v1/runs/nope', '/v1/runs/nope/events/poll'])
      expectEnvelope(await call('GET', path, { headers: auth() }), 404, 'not_found');
    expectEnvelope(
      await call('GET', '/v1/runs/nope/events', { headers: { ...auth(), accept: 'application/json' } }),
      404,
      'not_found',
    );
  });

  it('400 for invalid stream modes and query parameters, before the run lookup', async () => {
    const json = { ...auth(), accept: 'application/json' };
    const mode = expectEnvelope(
      await call('GET', '/v1/runs/nope/events?streamMode=bogus', { headers: json }),
      400,
      'unsupported_stream_mode',
    );
    expect(mode.details?.supported).toEqual(['updates', 'values', 'messages', 'debug']);
    expectEnvelope(
      await call('GET', '/v1/runs/nope/events?streamMode=values,updates', { headers: json }),
      400,
      'unsupported_stream_mode',
    );
    expectEnvelope(
      await call('GET', '/v1/runs/nope/events?after=abc', { headers: json }),
      400,
      'validation_error',
    );
    expectEnvelope(
      await call('GET', '/v1/runs/nope/events/poll?timeoutMs=99999', { headers: auth() }),
      400,
      'validation_error',
    );
    expectEnvelope(
      await call('GET', '/v1/runs/nope/events', { headers: { ...json, 'last-event-id': 'x' } }),
      400,
      'validation_error',
    );
  });
});

describe('runs', () => {
  let runId: string;

  it('creates a run: 201, Location, and the run is readable right away', async () => {
    const res = await call('POST', '/v1/runs', {
      headers: auth(),
      body: { workflowId: WORKFLOW, inputs: { a: 1 }, tags: ['x'] },
    });
    expect(res.status).toBe(201);
    runId = res.json.runId!;
    expect(res.json).toEqual({
      runId,
      status: 'running',
      eventsUrl: `http://gateway.test/v1/runs/${runId}/events`,
      statusUrl: `http://gateway.test/v1/runs/${runId}`,
    });
    expect(res.headers.get('location')).toBe(`http://gateway.test/v1/runs/${runId}`);
    const snapshot = await call('GET', `/v1/runs/${runId}`, { headers: auth() });
    expect(snapshot.status).toBe(200);
    expect(snapshot.json).toMatchObject({
      runId,
      workflowId: WORKFLOW,
      status: 'running',
      owner: { tenant: 't1', principal: 'key-t1' },
    });
  });

  it('hides the run from another tenant (404, not 403)', async () => {
    expectEnvelope(await call('GET', `/v1/runs/${runId}`, { headers: auth(KEYS.t2) }), 404, 'not_found');
    expectEnvelope(
      await call('GET', `/v1/runs/${runId}/events/poll`, { headers: auth(KEYS.t2) }),
      404,
      'not_found',
    );
  });

  it('lists events as JSON on /events with Accept: application/json', async () => {
    const res = await call('GET', `/v1/runs/${runId}/events`, {
      headers: { ...auth(), accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.json.events!.map((e) => [e.sequence, e.type])).toEqual([[0, 'run.started']]);
    expect(res.json).toMatchObject({ nextAfter: 0, runStatus: 'running', isComplete: false });
  });

  it('long-polls: returns at once when events exist, otherwise when the next one arrives', async () => {
    const now = await call('GET', `/v1/runs/${runId}/events/poll`, { headers: auth() });
    expect(now.json.events!.map((e) => e.sequence)).toEqual([0]);
    const started = Date.now();
    setTimeout(() => void appendEvent(runId, 1, 'node.started', { nodeId: 'n1' }), 300);
    const later = await call('GET', `/v1/runs/${runId}/events/poll?after=0&timeoutMs=10000`, {
      headers: auth(),
    });
    expect(later.json.events!.map((e) => [e.sequence, e.type])).toEqual([[1, 'node.started']]);
    expect(later.json.nextAfter).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    const empty = await call('GET', `/v1/runs/${runId}/events/poll?lastSequence=1&timeout=0`, {
      headers: auth(),
    });
    expect(empty.json).toMatchObject({ events: [], nextAfter: 1, runStatus: 'running', isComplete: false });
  });

  it('streams SSE: backlog, live events, close after the terminal event; updates mode filters', async () => {
    setTimeout(() => void appendEvent(runId, 2, 'run.completed', { outputs: {} }, 'completed'), 400);
    const debug = await readSse(`/v1/runs/${runId}/events?streamMode=debug`, auth());
    expect(debug.status).toBe(200);
    expect(debug.contentType).toMatch(/^text\/event-stream/);
    expect(debug.frames.map((f) => [f.id, f.event])).toEqual([
      ['0', 'run.started'],
      ['1', 'node.started'],
      ['2', 'run.completed'],
    ]);
    expect(debug.frames[2]!.data).toMatchObject({ runId, type: 'run.completed', sequence: 2 });
    const updates = await readSse(`/v1/runs/${runId}/events`, auth());
    expect(updates.frames.map((f) => f.event)).toEqual(['run.started', 'run.completed']);
  });

  it('resumes after Last-Event-ID and names mixed-mode frames by event type (ADR 0022)', async () => {
    const resumed = await readSse(`/v1/runs/${runId}/events?streamMode=debug`, {
      ...auth(),
      'last-event-id': '1',
    });
    expect(resumed.frames.map((f) => f.id)).toEqual(['2']);
    const pastTheEnd = await readSse(
      `/v1/runs/${runId}/events?streamMode=debug`,
      { ...auth(), 'last-event-id': '2' },
      3_000,
    );
    expect(pastTheEnd).toMatchObject({ status: 200, frames: [] });
    const mixed = await readSse(`/v1/runs/${runId}/events?streamMode=updates,messages`, auth());
    expect(mixed.frames.map((f) => f.event)).toEqual(['run.started', 'run.completed']);
  });

  it('sends a state.snapshot in values mode', async () => {
    const values = await readSse(`/v1/runs/${runId}/events?streamMode=values`, auth());
    expect(values.frames).toHaveLength(1);
    expect(values.frames[0]).toMatchObject({
      id: '2',
      event: 'state.snapshot',
      data: { type: 'state.snapshot', payload: { runId, status: 'completed' } },
    });
  });

  it('reports a completed run as complete on poll', async () => {
    const res = await call('GET', `/v1/runs/${runId}/events/poll?after=-1`, { headers: auth() });
    expect(res.json).toMatchObject({ nextAfter: 2, runStatus: 'completed', isComplete: true });
    expect(res.json.events).toHaveLength(3);
  });
});

describe('startup key handling', () => {
  it('embedded without keys: a dev key with every scope, written 0600, kept across restarts, never logged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-dev-key-'));
    try {
      const file = join(dir, 'nested', 'dev-api-key');
      const lines: string[] = [];
      const start = () =>
        createApiKeyRegistry(
          { mode: 'embedded' },
          { WOP_DEV_API_KEY_FILE: file },
          { log: (l) => lines.push(l), warn: (l) => lines.push(l) },
        );
      const registry = start();
      const key = readFileSync(file, 'utf8').trim();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(lines).toContain(`dev API key (every scope, tenant "default") written to ${file}`);
      const caller = registry.verify(key);
      expect(caller?.tenant).toBe('default');
      expect([...caller!.scopes]).toEqual(
        expect.arrayContaining(['runs:create', 'runs:read', 'approvals:respond']),
      );
      // A restart (or a second start) keeps the key: scripts and the CLI holding it still work.
      const again = start();
      expect(readFileSync(file, 'utf8').trim()).toBe(key);
      expect(again.verify(key)?.tenant).toBe('default');
      expect(lines).toContain(`dev API key (every scope, tenant "default") read from ${file}`);
      expect(lines.join('\n')).not.toContain(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a host without an audit signing key has no signed heads: 404 with the reason, never a 5xx', async () => {
    // This platform keeps its data in an external database and has no data folder: no key is generated.
    // (The head route answers the same to a key with audit:read; the key route needs no key at all.)
    const body = expectEnvelope(await call('GET', '/v1/audit/public-key', {}), 404, 'not_found');
    expect(body.details).toEqual({ reason: 'audit_signing_key_missing' });
    expect(body.message).toMatch(/does not sign audit heads.*OPENWOP_AUDIT_SIGNING_KEY/);
  });

  it('distributed without keys: the app refuses to start', async () => {
    delete process.env.WOP_API_KEYS;
    try {
      const distributed = { ...platform, config: { ...platform.config, mode: 'distributed' as const } };
      await expect(
        NestFactory.create(rootModule(distributed, [GatewayModule]), { logger: false, abortOnError: false }),
      ).rejects.toThrow(/no API keys configured/);
    } finally {
      process.env.WOP_API_KEYS = API_KEYS;
    }
  });
});

// Last: the slow fake-engine handler holds its bus partition for a while after the timeout.
describe('engine timeout', () => {
  it('503 unavailable with Retry-After when the engine does not answer in time', async () => {
    const res = await call('POST', '/v1/runs', { headers: auth(), body: { workflowId: SLOW_WORKFLOW } });
    const body = expectEnvelope(res, 503, 'unavailable');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(body.message).toMatch(/may still start/);
  });
});
