import {
  assertErrorEnvelope,
  MAX_JSON_DEPTH,
  MAX_NODE_EXECUTIONS,
  MAX_WORKFLOW_NODES,
} from '@openwop/contracts';
import { OpenWopClient } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { query, waitStatus } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// The edge knows the core's limits: every class of input the core cannot store or process is
// refused at the gateway with a 4xx in the spec's envelope, on every POST route, in both modes,
// and changes nothing; a valid request right after still works.

/** Where the requests go: a run waiting on its approval gate, and that gate's resolving token. */
interface Target {
  readonly runId: string;
  readonly token: string;
}

interface Route {
  readonly name: string;
  readonly path: (t: Target) => string;
  /** No API key (the token route: the token is the authority). */
  readonly anonymous?: boolean;
}

const NODE = 'gate';

const ROUTES: readonly Route[] = [
  { name: 'POST /v1/runs', path: () => '/v1/runs' },
  { name: 'POST /v1/runs/{id}/cancel', path: (t) => `/v1/runs/${t.runId}/cancel` },
  { name: 'POST /v1/runs/{id}:fork', path: (t) => `/v1/runs/${t.runId}:fork` },
  { name: 'POST /v1/runs/{id}/interrupts/{node}', path: (t) => `/v1/runs/${t.runId}/interrupts/${NODE}` },
  { name: 'POST /v1/runs/{id}:resolveInterrupt', path: (t) => `/v1/runs/${t.runId}:resolveInterrupt` },
  { name: 'POST /v1/runs/{id}/approvals/{node}', path: (t) => `/v1/runs/${t.runId}/approvals/${NODE}` },
  { name: 'POST /v1/interrupts/{token}', path: (t) => `/v1/interrupts/${t.token}`, anonymous: true },
  { name: 'POST /v1/workflows', path: () => '/v1/workflows' },
];

interface BodyClass {
  readonly name: string;
  readonly contentType: string;
  readonly body: string;
  readonly status: number;
  readonly error: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const nested = (depth: number) => `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;

/** Classes every POST route refuses the same way. */
const EVERY_ROUTE: readonly BodyClass[] = [
  {
    name: 'JSON nested 3,000 deep',
    contentType: 'application/json',
    body: nested(3_000),
    status: 400,
    error: 'validation_error',
  },
  {
    name: `JSON nested ${MAX_JSON_DEPTH + 1} deep`,
    contentType: 'application/json',
    body: nested(MAX_JSON_DEPTH),
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'a form-encoded body',
    contentType: 'application/x-www-form-urlencoded',
    body: 'workflowId=conformance-noop&action=reject',
    status: 415,
    error: 'unsupported_media_type',
  },
  {
    name: 'a text/plain body',
    contentType: 'text/plain',
    body: '{"workflowId":"conformance-noop"}',
    status: 415,
    error: 'unsupported_media_type',
  },
  {
    name: 'a multipart body',
    contentType: 'multipart/form-data; boundary=x',
    body: '--x\r\nContent-Disposition: form-data; name="action"\r\n\r\nreject\r\n--x--\r\n',
    status: 415,
    error: 'unsupported_media_type',
  },
  {
    name: 'a JSON array',
    contentType: 'application/json',
    body: '[{"action":"reject","workflowId":"conformance-noop"}]',
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'a JSON string',
    contentType: 'application/json',
    body: '"reject"',
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'JSON null',
    contentType: 'application/json',
    body: 'null',
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'a body that is not the gzip it claims',
    contentType: 'application/json',
    headers: { 'content-encoding': 'gzip' },
    body: '{"action":"reject"}',
    status: 400,
    error: 'validation_error',
  },
  {
    name: 'a Content-Encoding the host does not take',
    contentType: 'application/json',
    headers: { 'content-encoding': 'compress' },
    body: '{"action":"reject"}',
    status: 415,
    error: 'unsupported_media_type',
  },
];

const json = (v: unknown) => JSON.stringify(v);
const node = (id: string, config: Record<string, unknown> = {}) => ({ id, typeId: 'core.noop', config });
const definition = (id: string, nodes: unknown[], edges: unknown[] = []) => ({
  id,
  name: id,
  version: '1.0.0',
  nodes,
  edges,
});
const year200000Cursor = Buffer.from(json(['+200000-01-01T00:00:00.000Z', 'x'])).toString('base64url');

/** Route-specific values the core cannot hold. */
const SPECIFIC: readonly (BodyClass & { readonly route: string })[] = [
  {
    route: 'POST /v1/runs',
    name: 'recursionLimit 8000',
    contentType: 'application/json',
    body: json({ workflowId: 'conformance-noop', configurable: { recursionLimit: 8000 } }),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs',
    name: 'an input number past double precision (1e400)',
    contentType: 'application/json',
    body: '{"workflowId":"conformance-noop","inputs":{"x":1e400}}',
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs',
    name: 'a top-level constructor key',
    contentType: 'application/json',
    body: '{"workflowId":"conformance-noop","constructor":{"workflowId":"x"}}',
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs',
    name: 'a top-level __proto__ key',
    contentType: 'application/json',
    body: '{"workflowId":"conformance-noop","__proto__":{"tenantId":"t2"}}',
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs/{id}/cancel',
    name: 'a non-string reason',
    contentType: 'application/json',
    body: json({ reason: ['x'] }),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs/{id}:fork',
    name: 'a fromSeq past the sequence column',
    contentType: 'application/json',
    body: json({ mode: 'replay', fromSeq: 2 ** 31 }),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs/{id}:fork',
    name: 'a branch recursionLimit 8000',
    contentType: 'application/json',
    body: json({ mode: 'branch', fromSeq: 1, runOptionsOverlay: { configurable: { recursionLimit: 8000 } } }),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs/{id}:resolveInterrupt',
    name: 'a turn ts 1e300',
    contentType: 'application/json',
    body: '{"nodeId":"gate","operation":"exchange","turn":{"messageId":"m1","content":"hi","ts":1e300}}',
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/interrupts/{token}',
    name: 'a turn ts -1',
    contentType: 'application/json',
    body: json({ resumeValue: { operation: 'exchange', turn: { messageId: 'm1', ts: -1 } } }),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/workflows',
    name: 'a gate timeoutMs 1e15',
    contentType: 'application/json',
    body: json(
      definition('edge-timeout', [{ id: 'g', typeId: 'core.approvalGate', config: { timeoutMs: 1e15 } }]),
    ),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/workflows',
    name: `${MAX_WORKFLOW_NODES + 1} nodes`,
    contentType: 'application/json',
    body: json(
      definition(
        'edge-big',
        Array.from({ length: MAX_WORKFLOW_NODES + 1 }, (_, i) => node(`n${i}`)),
      ),
    ),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/workflows',
    name: 'a YAML alias bomb',
    contentType: 'application/yaml',
    body: [
      'a: &a [x,x,x,x,x,x,x,x,x]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    ].join('\n'),
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/workflows',
    name: 'YAML nested 3,000 deep',
    contentType: 'application/yaml',
    body: `${'- '.repeat(3_000)}x`,
    status: 400,
    error: 'validation_error',
  },
  {
    route: 'POST /v1/runs',
    name: 'YAML on a JSON-only route',
    contentType: 'text/yaml',
    body: 'id: x',
    status: 415,
    error: 'unsupported_media_type',
  },
];

/** Read routes whose query cursors and numbers the core cannot take. */
const QUERIES: readonly { readonly name: string; readonly path: (t: Target) => string }[] = [
  {
    name: 'GET /v1/interrupts with a cursor of year +200000',
    path: () => `/v1/interrupts?cursor=${year200000Cursor}`,
  },
  { name: 'GET /v1/runs with a cursor of year +200000', path: () => `/v1/runs?cursor=${year200000Cursor}` },
  { name: 'GET /v1/runs with a cursor that is not base64url', path: () => '/v1/runs?cursor=%7B%7D' },
  {
    name: 'GET /v1/runs/{id}/events/poll past the sequence column',
    path: (t) => `/v1/runs/${t.runId}/events/poll?after=2147483648`,
  },
  {
    name: 'GET /v1/runs/{id}/conversations/{c} past the turn column',
    path: (t) => `/v1/runs/${t.runId}/conversations/c?after=99999999999`,
  },
];

/** Tables whose row counts show whether a request changed anything. */
const TABLES = [
  'runs',
  'run_events',
  'engine_runs',
  'workflows',
  'interrupts',
  'pending_interrupts',
  'resolution_tokens',
  'conversation_turns',
  'outbox',
];

async function counts(url: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES)
    out[t] = Number((await query<{ n: string }>(url, `SELECT count(*) AS n FROM ${t}`))[0]?.n);
  return out;
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('edge limits, %s mode', (mode) => {
  let hut: HostUnderTest;
  let client: OpenWopClient;
  let target: Target;
  let before: Record<string, number>;

  async function send(
    route: Route | { path: (t: Target) => string; anonymous?: boolean },
    method: string,
    contentType?: string,
    body?: string,
    extra: Readonly<Record<string, string>> = {},
  ): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    if (!('anonymous' in route && route.anonymous)) headers.authorization = `Bearer ${TEST_KEYS.t1}`;
    if (contentType) headers['content-type'] = contentType;
    const res = await fetch(`${hut.host.gateways[0]!}${route.path(target)}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    return { status: res.status, body: await res.json() };
  }

  beforeAll(async () => {
    hut = await MODES[mode]();
    client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
    const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
    const snapshot = await waitFor(
      async () => {
        const s = await client.getRun(runId);
        const token = (s.interrupt as { interruptToken?: string } | undefined)?.interruptToken;
        return s.status === 'waiting-approval' && token ? { token } : undefined;
      },
      { timeoutMs: 20_000, what: 'run waiting on its gate with a resolving token' },
    );
    target = { runId, token: snapshot.token };
    await waitFor(async () => (await counts(hut.db.url)).outbox === 0, { what: 'outbox drained' });
    before = await counts(hut.db.url);
  });
  afterAll(async () => {
    await hut?.stop();
  });

  describe.each(ROUTES)('$name', (route) => {
    it.each(EVERY_ROUTE)('answers $name with $status $error in the envelope', async (c) => {
      const res = await send(route, 'POST', c.contentType, c.body, c.headers);
      expect(res).toMatchObject({ status: c.status, body: { error: c.error } });
      expect(() => assertErrorEnvelope(res.body)).not.toThrow();
    });
  });

  it.each(SPECIFIC)('$route answers $name with $status $error in the envelope', async (c) => {
    const route = ROUTES.find((r) => r.name === c.route)!;
    const res = await send(route, 'POST', c.contentType, c.body);
    expect(res).toMatchObject({ status: c.status, body: { error: c.error } });
    expect(() => assertErrorEnvelope(res.body)).not.toThrow();
  });

  it.each(QUERIES)('answers $name with 400 validation_error', async (q) => {
    const res = await send(q, 'GET');
    expect(res).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(() => assertErrorEnvelope(res.body)).not.toThrow();
  });

  it('advertises the bounds it enforces in discovery', async () => {
    // `limits` is closed to capabilities.schema.json's keys; the host's other bounds are under `extensions.limits`.
    const doc = (await (await fetch(`${hut.host.gateways[0]!}/.well-known/openwop`)).json()) as {
      limits: Record<string, number>;
      extensions: { limits: Record<string, number> };
    };
    expect(doc.limits).toMatchObject({ maxNodeExecutions: MAX_NODE_EXECUTIONS });
    expect(doc.extensions.limits).toMatchObject({
      maxNodeExecutions: MAX_NODE_EXECUTIONS,
      maxJsonDepth: MAX_JSON_DEPTH,
      maxWorkflowNodes: MAX_WORKFLOW_NODES,
    });
    expect(
      Object.values({ ...doc.limits, ...doc.extensions.limits }).every((v) => Number.isInteger(v) && v > 0),
    ).toBe(true);
  });

  it('changed nothing for any refused request; the run still waits and the same valid requests then work', async () => {
    expect(await counts(hut.db.url)).toEqual(before);
    expect((await client.getRun(target.runId)).status).toBe('waiting-approval');

    // The gate resolves through the very token every refused body was sent to.
    const resolved = await send(
      ROUTES.find((r) => r.anonymous)!,
      'POST',
      'application/json',
      json({ action: 'accept' }),
    );
    expect(resolved.status).toBe(200);
    await waitStatus(client, target.runId, 'completed', 20_000);

    // Keys named like prototype members are data in free-form members, and a run within limits starts.
    const created = await send(
      ROUTES[0]!,
      'POST',
      'application/json',
      `{"workflowId":"conformance-noop","inputs":{"constructor":{"a":1},"__proto__":{"b":2},"toString":"x"},"configurable":{"recursionLimit":${MAX_NODE_EXECUTIONS}}}`,
    );
    expect(created.status).toBe(201);
    await waitStatus(client, (created.body as { runId: string }).runId, 'completed', 20_000);

    // YAML registration at the bounds works.
    const yaml = [
      'id: edge-ok',
      'name: edge-ok',
      "version: '1.0.0'",
      'nodes:',
      '  - {id: a, typeId: core.noop, config: {timeoutMs: 1000}}',
      'edges: []',
    ].join('\n');
    const registered = await send(
      ROUTES.find((r) => r.name === 'POST /v1/workflows')!,
      'POST',
      'application/yaml',
      yaml,
    );
    expect(registered).toMatchObject({ status: 201, body: { workflowId: 'edge-ok' } });
  });
});
