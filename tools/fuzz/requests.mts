/**
 * Schema-aware random and malformed requests for every gateway endpoint (apps/gateway/src/**
 * /*.controller.ts), built with fast-check from a pool of live ids: wrong types, missing and unknown
 * fields, huge strings, unicode, bad JSON, wrong content types, bad auth, unknown ids, and
 * valid-ish bodies shaped after /work/shared/openwop/schemas (workflow-definition, run-options).
 */
import fc from 'fast-check';

/** The API keys of the host under test (libs/testing TEST_KEYS). */
export interface Keys {
  readonly t1: string;
  readonly t1b: string;
  readonly t2: string;
  readonly readonly: string;
}

/** What the fuzzer knows of the host right now. */
export interface Pool {
  /** Runs of tenant t1 waiting on an approval gate `gate` (conformance-approval). */
  readonly approvalRuns: readonly string[];
  /** Runs of tenant t1 waiting on clarification node `ask`. */
  readonly clarificationRuns: readonly string[];
  /** Runs of tenant t1 waiting on external event node `gate` (correlation {orderId: 'o-1'}). */
  readonly externalRuns: readonly string[];
  /** Terminal runs of tenant t1. */
  readonly terminalRuns: readonly string[];
  /** Signed tokens: resolve and inspect, each with the run it acts on. */
  readonly tokens: readonly { token: string; runId: string }[];
  /** Workflow ids a run may be started from without timers (so no write happens later on its own). */
  readonly workflows: readonly string[];
  /** Paths from the host's OpenAPI document that no dedicated generator covers (method, template). */
  readonly extraRoutes: readonly { method: string; path: string }[];
}

/** One request to send. `targets` are the ids an accepted (2xx) request may change. */
export interface FuzzRequest {
  readonly endpoint: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** SSE: read the status and headers, then hang up. */
  readonly stream?: boolean;
  readonly mutating: boolean;
  readonly targets: readonly string[];
}

type Headers = Record<string, string>;

// ------------------------------------------------------------------ building blocks

const HUGE = 'x'.repeat(70_000);

/** Strings that break things: empty, unicode, control characters, injections, huge. */
const nastyString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'null',
    'undefined',
    '../../etc/passwd',
    "'; DROP TABLE runs; --",
    '%',
    '%ZZ',
    '\uFFFF',
    '\uD800',
    '🙂🙃',
    'Ω≈ç√∫',
    'a\nb\r\nc',
    '<script>alert(1)</script>',
    '${7*7}',
    '__proto__',
    'constructor',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constant(HUGE),
);

const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Any value of the wrong type for a field (the right type may come out too; that is fine). */
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  nastyString,
);

const unknownId = fc.oneof(
  fc.uuid().map((u) => `run-${u}`),
  fc.uuid(),
  nastyString,
);

function pick<T>(xs: readonly T[], fallback: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return xs.length ? fc.constantFrom(...xs) : fallback;
}

/** A path segment: usually percent-encoded, sometimes raw (bad escapes, slashes, dot segments). */
function segment(id: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(id, fc.nat(9)).map(([s, r]) => (r === 0 ? s.replace(/[\s#?]/g, '') || '%' : enc(s)));
}

/** encodeURIComponent of a string with lone surrogates replaced (they have no UTF-8 form). */
export function enc(s: string): string {
  return encodeURIComponent(
    s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );
}

/** Authorization: mostly the right key, otherwise none, a malformed header, an unknown key, another tenant or a read-only key. */
function auth(keys: Keys): fc.Arbitrary<Headers> {
  return fc
    .oneof(
      { weight: 14, arbitrary: fc.constant(`Bearer ${keys.t1}`) },
      { weight: 1, arbitrary: fc.constant(`Bearer ${keys.t1b}`) },
      { weight: 1, arbitrary: fc.constant(`Bearer ${keys.t2}`) },
      { weight: 1, arbitrary: fc.constant(`Bearer ${keys.readonly}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'Bearer',
          'Bearer ',
          `Basic ${Buffer.from('a:b').toString('base64')}`,
          `bearer ${keys.t1}`,
          `Bearer  ${keys.t1}`,
          `Bearer ${keys.t1}x`,
        ),
      },
      {
        weight: 1,
        arbitrary: fc.string({ maxLength: 60 }).map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, '')}`),
      },
    )
    .map((v): Headers => (v === undefined ? {} : { authorization: v }));
}

/** A body for a JSON endpoint: the valid-ish value mostly, else malformed JSON, other types, huge, wrong content type. */
function body(valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ body?: string; headers: Headers }> {
  const json = (v: unknown, ct = 'application/json') => ({
    body: JSON.stringify(v),
    headers: { 'content-type': ct },
  });
  return fc.oneof(
    { weight: 10, arbitrary: valid.map((v) => json(v)) },
    { weight: 2, arbitrary: anyJson.map((v) => json(v)) },
    { weight: 1, arbitrary: fc.constant({ headers: {} }) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            '{',
            '{"a":}',
            'nul',
            '[1,2',
            '{"workflowId": "x",}',
            "{'a': 1}",
            '\u0000',
            '{"a":"\\uZZZZ"}',
            '1e999999',
            '{"__proto__": {"x": 1}}',
          ),
          fc.string({ maxLength: 30 }),
        )
        .map((s) => ({ body: s, headers: { 'content-type': 'application/json' } })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json; charset=utf-16',
            'application/json; charset=latin1',
            'application/vnd.api+json',
            '',
          ),
        )
        .map(([v, ct]) => json(v, ct)),
    },
    { weight: 1, arbitrary: fc.constantFrom<unknown>([], [1], 'string', 42, null, true).map((v) => json(v)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(
            valid.map((v) => toYamlish(v)),
            fc.constantFrom(
              'a: [',
              '- - -',
              'id: "\\0"',
              '&a [*a]',
              'key: !!binary x',
              '%YAML 9.9\n---\nx: 1',
              ': :',
            ),
            nastyString,
          ),
          fc.constantFrom('application/yaml', 'text/yaml', 'application/x-yaml'),
        )
        .map(([b, ct]) => ({ body: b, headers: { 'content-type': ct } })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(1, 2).map((n) => ({
        body: `{"x":"${'y'.repeat(n * 700_000)}"}`,
        headers: { 'content-type': 'application/json' },
      })),
    },
  );
}

/** A YAML rendering of a JSON value (flow style: JSON is YAML), or its keys as a block mapping. */
function toYamlish(v: unknown): string {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    return Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${JSON.stringify(x) ?? 'null'}`)
      .join('\n');
  }
  return JSON.stringify(v) ?? '';
}

/** Adds unknown fields or drops known ones from an object now and then. */
function mangle(obj: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: obj },
    {
      weight: 1,
      arbitrary: fc
        .tuple(obj, fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { minKeys: 1, maxKeys: 3 }))
        .map(([o, extra]) => ({ ...o, ...extra })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(obj, fc.nat()).map(([o, n]) => {
        const keys = Object.keys(o);
        const copy = { ...o };
        if (keys.length) delete copy[keys[n % keys.length]!];
        return copy;
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(obj, fc.nat(), wrongType).map(([o, n, w]) => {
        const keys = Object.keys(o);
        return keys.length ? { ...o, [keys[n % keys.length]!]: w } : o;
      }),
    },
  );
}

/** A query string: each listed parameter absent, a valid value, or garbage. */
function query(params: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const entries = Object.entries(params).map(([k, valid]) =>
    fc
      .oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 3, arbitrary: valid },
        { weight: 1, arbitrary: nastyString },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '-1',
            '1e3',
            '0x10',
            '1.5',
            'NaN',
            '99999999999999999999',
            '2147483648',
            '-2147483649',
            '8640000000000001',
            '9007199254740993',
            '',
          ),
        },
      )
      .map((v) => (v === undefined ? '' : `${k}=${enc(v)}`)),
  );
  return fc.tuple(...entries, fc.boolean()).map((parts) => {
    const dup = parts.pop() as boolean;
    const q = (parts as string[]).filter(Boolean);
    if (dup && q.length) q.push(q[0]!); // a repeated parameter arrives as an array
    return q.length ? `?${q.join('&')}` : '';
  });
}

const int = (lo: number, hi: number) => fc.integer({ min: lo, max: hi }).map(String);

// ------------------------------------------------------------------ valid-ish bodies

const runOptions = fc.record(
  {
    inputs: fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 }),
    tenantId: fc.constantFrom('t1', 't2', ''),
    scopeId: fc.string({ maxLength: 20 }),
    callbackUrl: fc.webUrl(),
    configurable: fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 }),
    tags: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
    metadata: fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 }),
  },
  { requiredKeys: [] },
);

const NODE_TYPES = [
  'core.noop',
  'core.approvalGate',
  'core.clarificationGate',
  'core.externalEvent',
  'core.custom',
  'core.conversationGate',
  'core.unknown',
  'x',
];

/** A workflow definition (workflow-definition.schema.json): valid-ish graphs of known and unknown node types. */
const workflowDefinition = fc
  .record({
    id: fc.oneof(
      fc.uuid().map((u) => `fuzz-wf-${u}`),
      nastyString,
    ),
    name: fc.string({ maxLength: 20 }),
    version: fc.constantFrom('1.0.0', '2', ''),
    nodes: fc.array(
      fc.record({
        id: fc.constantFrom('a', 'b', 'c', ''),
        typeId: fc.constantFrom(...NODE_TYPES),
        config: fc.oneof(
          fc.constant({}),
          fc.constant({ title: 't', actions: ['accept', 'reject'] }),
          fc.dictionary(fc.string({ maxLength: 6 }), anyJson, { maxKeys: 2 }),
        ),
      }),
      { maxLength: 3 },
    ),
    edges: fc.array(
      fc.record({
        id: fc.string({ maxLength: 4 }),
        sourceNodeId: fc.constantFrom('a', 'b', 'z'),
        targetNodeId: fc.constantFrom('a', 'b', 'c'),
      }),
      { maxLength: 2 },
    ),
    triggers: fc.constant([]),
    variables: fc.constant([]),
    metadata: fc.constant({}),
    settings: fc.constantFrom({}, { timeout: 0 }),
  })
  // A timer is a write nobody asked for later on; keep registered workflows timer-free.
  .map((d) => ({
    ...d,
    nodes: d.nodes.map((n) => ({ ...n, config: { ...n.config, timeoutMs: undefined } })),
  }));

const APPROVAL_ACTIONS = ['accept', 'reject', 'edit', 'refine', 'ask', 'approve', 'ACCEPT', ''];

const approvalAnswer = fc.record(
  {
    action: fc.constantFrom(...APPROVAL_ACTIONS),
    comment: fc.string({ maxLength: 30 }),
    decision: fc.constantFrom('approved', 'rejected', 'maybe'),
    editedArtifact: anyJson,
    feedback: fc.string({ maxLength: 20 }),
    question: fc.string({ maxLength: 20 }),
  },
  { requiredKeys: [] },
);

const clarificationAnswer = fc.record(
  {
    answers: fc.oneof(
      fc.record({ q1: fc.string({ maxLength: 30 }) }),
      fc.dictionary(fc.string({ maxLength: 4 }), anyJson, { maxKeys: 2 }),
    ),
  },
  { requiredKeys: [] },
);

const externalAnswer = fc.record(
  {
    eventPayload: anyJson,
    correlation: fc.oneof(
      fc.constant({ orderId: 'o-1' }),
      fc.constant({ orderId: 'o-2' }),
      fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 2 }),
    ),
  },
  { requiredKeys: [] },
);

const anyAnswer = fc.oneof(approvalAnswer, clarificationAnswer, externalAnswer);

/** `{resumeValue: answer}` (the spec's shape) or the answer itself. */
const resolveBody = fc.oneof(
  anyAnswer.map((a) => ({ resumeValue: a })),
  anyAnswer,
  fc.record({ resumeValue: anyJson }),
);

// ------------------------------------------------------------------ endpoints

/** Every endpoint's request arbitrary, built against the pool as it is now. */
export function requestArbitrary(pool: Pool, keys: Keys): fc.Arbitrary<FuzzRequest> {
  const waiting = [...pool.approvalRuns, ...pool.clarificationRuns, ...pool.externalRuns];
  const known = [...waiting, ...pool.terminalRuns];
  const runId = fc.oneof(
    { weight: 4, arbitrary: pick(known, unknownId) },
    { weight: 1, arbitrary: unknownId },
  );
  const runSeg = segment(runId);
  const nodeSeg = segment(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom('gate', 'ask') }, { weight: 1, arbitrary: nastyString }),
  );
  const tokenSeg = segment(
    fc.oneof(
      {
        weight: 3,
        arbitrary: pick(
          pool.tokens.map((t) => t.token),
          unknownId,
        ),
      },
      {
        weight: 1,
        arbitrary: pick(
          pool.tokens.map((t) => t.token),
          unknownId,
        ).chain((t) =>
          fc
            .nat(Math.max(0, t.length - 1))
            .map((i) => t.slice(0, i) + (t[i] === 'A' ? 'B' : 'A') + t.slice(i + 1)),
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom('v1.abc.def', 'a.b', '....', 'eyJ9.eyJ9.x') },
      { weight: 1, arbitrary: nastyString },
    ),
  );
  const tokenRun = new Map(pool.tokens.map((t) => [enc(t.token), t.runId]));
  const runOf = (seg: string) => {
    try {
      return decodeURIComponent(seg);
    } catch {
      return seg;
    }
  };
  const streamModes = fc.oneof(
    fc.constantFrom(
      'updates',
      'values',
      'messages',
      'debug',
      'updates,debug',
      'messages,updates',
      'values,updates',
      'custom',
      'UPDATES',
      'updates,',
      ',',
      'updates,updates',
    ),
    nastyString,
  );
  const a = auth(keys);

  type Gen = fc.Arbitrary<FuzzRequest>;
  const get = (
    endpoint: string,
    path: fc.Arbitrary<string>,
    extraHeaders: fc.Arbitrary<Headers> = fc.constant({}),
  ): Gen =>
    fc.tuple(path, a, extraHeaders).map(([p, h, x]) => ({
      endpoint,
      method: 'GET',
      path: p,
      headers: { ...h, ...x },
      mutating: false,
      targets: [],
    }));
  const post = (
    endpoint: string,
    path: fc.Arbitrary<string>,
    valid: fc.Arbitrary<unknown>,
    targets: (path: string) => string[],
    withAuth = true,
  ): Gen =>
    fc.tuple(path, withAuth ? a : fc.constant({}), body(valid)).map(([p, h, b]) => ({
      endpoint,
      method: 'POST',
      path: p,
      headers: { ...h, ...b.headers },
      ...(b.body !== undefined ? { body: b.body } : {}),
      mutating: true,
      targets: targets(p),
    }));
  const runPath = (suffix: string) => runSeg.map((r) => `/v1/runs/${r}${suffix}`);
  // `/v1/runs/{runId}:verb` names its run; a collection route (`/v1/runs:verb`) names none.
  const runIdOfPath = (p: string) => {
    const seg = p.split('/')[3];
    return seg === undefined ? [] : [runOf(seg.replace(/:[A-Za-z-]+$/, ''))];
  };

  const generators: Record<string, Gen> = {
    'GET /.well-known/openwop': get('GET /.well-known/openwop', fc.constant('/.well-known/openwop')),
    'GET /v1/openapi.json': get('GET /v1/openapi.json', fc.constant('/v1/openapi.json')),
    'GET /healthz': get('GET /healthz', fc.constant('/healthz')),
    'GET /readyz': get('GET /readyz', fc.constant('/readyz')),
    'POST /v1/runs': post(
      'POST /v1/runs',
      fc.constant('/v1/runs'),
      mangle(
        fc
          .tuple(
            fc.oneof(
              { weight: 3, arbitrary: pick(pool.workflows, fc.constant('conformance-noop')) },
              { weight: 1, arbitrary: nastyString },
            ),
            runOptions,
          )
          .map(([workflowId, o]) => ({ workflowId, ...o })),
      ),
      () => [],
    ),
    'GET /v1/runs/{runId}': get('GET /v1/runs/{runId}', runPath('')),
    'GET /v1/runs/{runId}/events (SSE)': fc
      .tuple(
        runPath('/events'),
        query({ streamMode: streamModes, after: int(-3, 20), bufferMs: int(-1, 6000) }),
        a,
        fc.oneof(
          fc.constant({}),
          fc.constant({ accept: 'text/event-stream' }),
          fc.record({
            'last-event-id': fc.oneof(
              int(-2, 30),
              nastyString.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
            ),
          }),
        ),
      )
      .map(([p, q, h, x]) => ({
        endpoint: 'GET /v1/runs/{runId}/events (SSE)',
        method: 'GET',
        path: p + q,
        headers: { ...h, ...x },
        stream: true,
        mutating: false,
        targets: [],
      })),
    'GET /v1/runs/{runId}/events (JSON)': fc
      .tuple(runPath('/events'), query({ streamMode: streamModes, after: int(-3, 20) }), a)
      .map(([p, q, h]) => ({
        endpoint: 'GET /v1/runs/{runId}/events (JSON)',
        method: 'GET',
        path: p + q,
        headers: { ...h, accept: 'application/json' },
        mutating: false,
        targets: [],
      })),
    'GET /v1/runs/{runId}/events/poll': fc
      .tuple(
        runPath('/events/poll'),
        query({
          after: int(-3, 20),
          lastSequence: int(-1, 20),
          timeoutMs: int(0, 50),
          timeout: fc.constantFrom('0', '61', '-1'),
          streamMode: streamModes,
        }),
        a,
      )
      .map(([p, q, h]) => ({
        endpoint: 'GET /v1/runs/{runId}/events/poll',
        method: 'GET',
        path: p + q,
        headers: h,
        mutating: false,
        targets: [],
      })),
    'POST /v1/runs/{runId}/interrupts/{nodeId}': post(
      'POST /v1/runs/{runId}/interrupts/{nodeId}',
      fc.tuple(runSeg, nodeSeg).map(([r, n]) => `/v1/runs/${r}/interrupts/${n}`),
      mangle(resolveBody),
      runIdOfPath,
    ),
    'POST /v1/runs/{runId}/approvals/{nodeId}': post(
      'POST /v1/runs/{runId}/approvals/{nodeId}',
      fc.tuple(runSeg, nodeSeg).map(([r, n]) => `/v1/runs/${r}/approvals/${n}`),
      mangle(approvalAnswer),
      runIdOfPath,
    ),
    'POST /v1/runs/{runId}/cancel': post(
      'POST /v1/runs/{runId}/cancel',
      runPath('/cancel'),
      mangle(fc.record({ reason: fc.oneof(fc.string({ maxLength: 20 }), wrongType) }, { requiredKeys: [] })),
      runIdOfPath,
    ),
    'POST /v1/runs/{runId}:fork': post(
      'POST /v1/runs/{runId}:fork',
      runPath(':fork'),
      mangle(
        fc.record(
          {
            mode: fc.constantFrom('replay', 'branch', 'REPLAY', 'rewind'),
            fromSeq: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constant(2 ** 40)),
            runOptionsOverlay: fc.oneof(fc.constant({}), runOptions),
          },
          { requiredKeys: [] },
        ),
      ),
      runIdOfPath,
    ),
    'GET /v1/interrupts': get(
      'GET /v1/interrupts',
      query({
        kind: fc.constantFrom('approval', 'clarification', 'external-event', 'custom', 'nope'),
        minAgeMs: int(-5, 100000),
        maxAgeMs: int(-5, 100000),
        runId: runId,
        limit: int(-1, 250),
        cursor: fc
          .oneof(
            fc.jsonValue({ maxDepth: 1 }),
            fc
              .tuple(fc.constantFrom('2026-01-01T00:00:00Z', 'not a date', ''), fc.string({ maxLength: 5 }))
              .map((x) => [...x]),
          )
          .map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
      }).map((q) => `/v1/interrupts${q}`),
    ),
    'GET /v1/interrupts/{token}': fc.tuple(tokenSeg, fc.oneof(fc.constant({}), a)).map(([t, h]) => ({
      endpoint: 'GET /v1/interrupts/{token}',
      method: 'GET',
      path: `/v1/interrupts/${t}`,
      headers: h,
      mutating: false,
      targets: [],
    })),
    'POST /v1/interrupts/{token}': fc
      .tuple(tokenSeg, body(mangle(resolveBody as fc.Arbitrary<Record<string, unknown>>)))
      .map(([t, b]) => ({
        endpoint: 'POST /v1/interrupts/{token}',
        method: 'POST',
        path: `/v1/interrupts/${t}`,
        headers: b.headers,
        ...(b.body !== undefined ? { body: b.body } : {}),
        mutating: true,
        targets: [tokenRun.get(t) ?? runOf(t)],
      })),
    'POST /v1/workflows': post(
      'POST /v1/workflows',
      fc.constant('/v1/workflows'),
      mangle(workflowDefinition),
      () => [],
    ),
    'GET /v1/workflows/{workflowId}': get(
      'GET /v1/workflows/{workflowId}',
      segment(fc.oneof(pick(pool.workflows, nastyString), nastyString)).map((w) => `/v1/workflows/${w}`),
    ),
    'GET /v1/runs': get(
      'GET /v1/runs',
      query({
        status: fc.constantFrom('running', 'completed', 'waiting-approval', 'cancelled', 'nope'),
        workflowId: pick(pool.workflows, nastyString),
        limit: int(-1, 250),
        cursor: fc
          .oneof(
            fc.jsonValue({ maxDepth: 1 }),
            fc
              .tuple(fc.constantFrom('2026-01-01T00:00:00Z', 'not a date'), fc.string({ maxLength: 5 }))
              .map((x) => [...x]),
          )
          .map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
      }).map((q) => `/v1/runs${q}`),
    ),
    'POST /v1/runs/{runId}:resolveInterrupt': post(
      'POST /v1/runs/{runId}:resolveInterrupt',
      runPath(':resolveInterrupt'),
      mangle(
        fc.record(
          {
            nodeId: fc.oneof(fc.constantFrom('gate', 'ask', 'chat'), nastyString),
            operation: fc.constantFrom('exchange', 'close', 'open', ''),
            turn: fc.record(
              {
                messageId: fc.uuid(),
                from: fc.constantFrom('user', 'agent', ''),
                role: fc.constantFrom('user', 'assistant', 'system'),
                content: fc.oneof(fc.string({ maxLength: 40 }), wrongType),
              },
              { requiredKeys: [] },
            ),
            outcome: anyJson,
            resumeValue: anyAnswer,
          },
          { requiredKeys: ['nodeId'] },
        ),
      ),
      runIdOfPath,
    ),
    'unknown route or method': fc
      .tuple(
        fc.constantFrom('PUT', 'DELETE', 'PATCH', 'GET', 'POST', 'OPTIONS'),
        fc.oneof(
          fc.constantFrom(
            '/v1/runs',
            '/v1/runs/x/interrupts',
            '/v1/workflows',
            '/v2/runs',
            '/',
            '/v1',
            '/v1/',
            '//v1/runs',
            '/v1/runs/x/y/z',
            '/v1/interrupts/a/b',
            '/.well-known/openwop/x',
          ),
          nastyString.map((s) => `/v1/${enc(s)}`),
          nastyString.map((s) => `/${enc(s)}`),
        ),
        a,
      )
      .map(([m, p, h]) => ({
        endpoint: 'unknown route or method',
        method: m,
        path: p,
        headers: h,
        mutating: m !== 'GET' && m !== 'OPTIONS',
        targets: [],
      })),
  };

  // Routes of the OpenAPI document that no generator above knows (added since): random ids and JSON.
  for (const r of pool.extraRoutes) {
    const endpoint = `${r.method} ${r.path}`;
    const path = fc.tuple(runSeg, nodeSeg).map(([x, y]) => {
      let i = 0;
      return r.path.replace(/\{[^}]+\}/g, () => (i++ === 0 ? x : y));
    });
    generators[endpoint] =
      r.method === 'GET'
        ? get(endpoint, path)
        : fc.tuple(path, a, body(anyJson)).map(([p, h, b]) => ({
            endpoint,
            method: r.method,
            path: p,
            headers: { ...h, ...b.headers },
            ...(b.body !== undefined ? { body: b.body } : {}),
            mutating: true,
            targets: runIdOfPath(p),
          }));
  }
  return fc.oneof(...Object.values(generators));
}

/** The endpoints {@link requestArbitrary} covers with a dedicated generator (method + template). */
export const COVERED_ROUTES = [
  'GET /.well-known/openwop',
  'GET /v1/openapi.json',
  'GET /healthz',
  'GET /readyz',
  'POST /v1/runs',
  'GET /v1/runs/{runId}',
  'GET /v1/runs/{runId}/events',
  'GET /v1/runs/{runId}/events/poll',
  'POST /v1/runs/{runId}/interrupts/{nodeId}',
  'POST /v1/runs/{runId}/approvals/{nodeId}',
  'POST /v1/runs/{runId}/cancel',
  'POST /v1/runs/{runId}:fork',
  'GET /v1/interrupts',
  'GET /v1/interrupts/{token}',
  'POST /v1/interrupts/{token}',
  'POST /v1/workflows',
  'GET /v1/workflows/{workflowId}',
  'GET /v1/runs',
  'POST /v1/runs/{runId}:resolveInterrupt',
];

/** How a mutating request is made one the host must refuse. */
const SPOILERS = [
  'no-auth',
  'unknown-key',
  'read-only-key',
  'bad-json',
  'forged-token',
  'too-large',
] as const;

/**
 * Requests the host must refuse: {@link requestArbitrary}'s, with every mutating one spoiled (no or
 * unknown credentials, a key without the write scope, malformed JSON, a forged token, a body over
 * the limit). Reads stay as they are. A batch of these must write nothing at all.
 */
export function refusalArbitrary(pool: Pool, keys: Keys): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(requestArbitrary(pool, keys), fc.constantFrom(...SPOILERS), fc.nat(99))
    .map(([r, spoiler, roll]) => {
      if (!r.mutating) return r;
      const token = r.endpoint === 'POST /v1/interrupts/{token}';
      const how = spoiler === 'too-large' && roll > 5 ? 'bad-json' : spoiler;
      const headers = { ...r.headers };
      switch (
        token && (how === 'no-auth' || how === 'unknown-key' || how === 'read-only-key')
          ? 'forged-token'
          : how
      ) {
        case 'no-auth':
          delete headers.authorization;
          return { ...r, headers, targets: [] };
        case 'unknown-key':
          return {
            ...r,
            headers: { ...headers, authorization: 'Bearer wop_not_a_key_0000000000000000' },
            targets: [],
          };
        case 'read-only-key':
          return { ...r, headers: { ...headers, authorization: `Bearer ${keys.readonly}` }, targets: [] };
        case 'forged-token':
          if (!token) return { ...r, headers: { ...headers, authorization: 'Bearer forged' }, targets: [] };
          return { ...r, path: `/v1/interrupts/${r.path.split('/')[3] ?? ''}x`, targets: [] };
        case 'too-large':
          return {
            ...r,
            headers: { ...headers, 'content-type': 'application/json' },
            body: `{"x":"${'y'.repeat(1_100_000)}"}`,
            targets: [],
          };
        default:
          return {
            ...r,
            headers: { ...headers, 'content-type': 'application/json' },
            body: '{"resumeValue": {"action": "accept"',
            targets: [],
          };
      }
    });
}

// ------------------------------------------------------------------ hostile input (fixed adversarial cases)

/** The classes of hostile input the fuzzer sends besides its random requests. */
export const HOSTILE_CLASSES = [
  'borrowed-authority',
  'odd-numbers',
  'proto-keys',
  'deep-json',
  'yaml-alias-bomb',
  'crafted-cursor',
  'content-type',
  'wrong-json-type',
  'oversize-workflow',
  'redos',
  'parallel-workflow',
  'oversize-values',
] as const;
export type HostileClass = (typeof HOSTILE_CLASSES)[number];

/** A hostile request: its class and the statuses the host must answer with (none: anything but a 5xx). */
export interface HostileRequest extends FuzzRequest {
  readonly cls: HostileClass;
  readonly expect?: readonly number[];
}

/** Numbers no column or timer holds, as raw JSON literals (so `-0` and 30-digit integers reach the host as sent). */
export const ODD_NUMBERS = [
  '1e300',
  '1e15',
  '-0',
  '9007199254740993',
  '123456789012345678901234567890',
  '-1',
  '1.5',
  '8000',
  '2147483648',
  '1e21',
  '"NaN"',
  '"1e3"',
  '"Infinity"',
  '0',
  '-1e300',
  '5e-324',
] as const;

/** Odd numbers in a query string; those in {@link BAD_QUERY_NUMBERS} are no integer a column holds (400). */
export const ODD_QUERY_NUMBERS = [
  '1e300',
  '1e15',
  '-0',
  'NaN',
  'Infinity',
  '9007199254740993',
  '-1',
  '1.5',
  '0x10',
  '1e3',
  '+1',
  '1_000',
  '-1e300',
] as const;
const BAD_QUERY_NUMBERS = new Set(['1e300', 'NaN', 'Infinity', '1.5', '-1e300', '1_000']);

/** Object keys that name Object.prototype members. */
export const OBJECT_KEYS = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
] as const;

/** JSON nested `depth` deep: objects, arrays, or both alternating. */
export function deepJson(depth: number, shape: 'object' | 'array' | 'mixed' = 'object'): string {
  if (shape === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  if (shape === 'array') return '['.repeat(depth) + '1' + ']'.repeat(depth);
  const half = Math.floor(depth / 2);
  return '{"a":['.repeat(half) + '1' + ']}'.repeat(half);
}

/** A YAML document whose aliases expand to `9^levels` strings (a "billion laughs"), shaped like a workflow. */
export function yamlAliasBomb(levels = 9, mergeKeys = false): string {
  const lines = [
    'id: fuzz-yaml-bomb',
    'name: bomb',
    "version: '1.0.0'",
    'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ];
  for (let i = 1; i <= levels; i++) {
    const prev = `*a${i - 1}`;
    lines.push(
      mergeKeys
        ? `a${i}: &a${i} {<<: [${Array(9).fill(prev).join(',')}], k${i}: 1}`
        : `a${i}: &a${i} [${Array(9).fill(prev).join(',')}]`,
    );
  }
  lines.push(`nodes: [{id: n, typeId: core.noop, config: {x: *a${levels}}}]`, 'edges: []');
  return lines.join('\n') + '\n';
}

/** A workflow of `n` noop nodes: `parallel` fans out from one start node, `chain` is one long path. */
export function bigWorkflow(
  id: string,
  n: number,
  shape: 'parallel' | 'chain' | 'dense',
  extraEdges = 0,
): Record<string, unknown> {
  const nodes = [
    { id: 's', typeId: 'core.noop', config: {} },
    ...Array.from({ length: n }, (_, i) => ({ id: `n${i}`, typeId: 'core.noop', config: {} })),
  ];
  const edges: { id: string; sourceNodeId: string; targetNodeId: string }[] =
    shape === 'chain'
      ? Array.from({ length: n }, (_, i) => ({
          id: `e${i}`,
          sourceNodeId: i === 0 ? 's' : `n${i - 1}`,
          targetNodeId: `n${i}`,
        }))
      : Array.from({ length: n }, (_, i) => ({ id: `e${i}`, sourceNodeId: 's', targetNodeId: `n${i}` }));
  for (let i = 0; i < extraEdges; i++)
    edges.push({ id: `x${i}`, sourceNodeId: `n${i % n}`, targetNodeId: `n${(i * 7 + 1) % n}` });
  return {
    id,
    name: `fuzz ${shape} ${n}`,
    version: '1.0.0',
    nodes,
    edges,
    triggers: [],
    variables: [],
    metadata: {},
    settings: {},
  };
}

/** base64url of a JSON value: a cursor as this host spells them. */
const cursorOf = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** Cursors no page ever handed out: instants Postgres cannot hold, wrong shapes, garbage; `true` = must be refused (400). */
export const CRAFTED_CURSORS: readonly (readonly [string, boolean])[] = [
  [cursorOf(['+200000-01-01T00:00:00.000Z', 'run-x']), true],
  [cursorOf(['+275760-09-13T00:00:00.000Z', 'x']), true],
  [cursorOf(['-271821-04-20T00:00:00.000Z', 'x']), true],
  [cursorOf(['0000-01-01T00:00:00.000Z', 'x']), true],
  [cursorOf(['2026-02-30T25:61:00Z', 'x']), true],
  [cursorOf(['Infinity', 'x']), true],
  [cursorOf([1e300, 'x']), true],
  [cursorOf(['2026-01-01T00:00:00.000Z']), true],
  [cursorOf({ __proto__: null, constructor: 1 }), true],
  [cursorOf(['2026-01-01T00:00:00.000Z', 'x', 'y']), true],
  [cursorOf(['2026-01-01T00:00:00.000Z', 'a\u0000b']), true],
  [Buffer.from('["+200000-01-01T00:00:00Z","x"').toString('base64'), true],
  ['%00', true],
  ['*'.repeat(3000), true],
  [cursorOf(['2026-01-01T00:00:00.000Z', 'x'.repeat(4000)]), false],
  [cursorOf(['1970-01-01T00:00:00.000Z', '']), false],
];

/** What the hostile builders need of the host's state. */
export interface HostileTargets {
  /** A run of tenant t1 waiting on approval gate `gate` (may be resolved by nothing in these requests). */
  readonly approvalRun: string;
  /** A run of tenant t1 waiting on clarification node `ask`. */
  readonly clarificationRun: string;
  readonly terminalRun: string;
  /** A resolving token of `approvalRun` (sent without an API key, as a link would be). */
  readonly token: string;
}

/** Every POST route with a valid body for `t`, as `[endpoint, path, body, auth]` (bodies as values). */
function postRoutes(t: HostileTargets): [string, string, Record<string, unknown>, boolean][] {
  return [
    ['POST /v1/runs', '/v1/runs', { workflowId: 'conformance-noop' }, true],
    [
      'POST /v1/runs/{runId}/interrupts/{nodeId}',
      `/v1/runs/${t.approvalRun}/interrupts/gate`,
      { resumeValue: { action: 'accept' } },
      true,
    ],
    [
      'POST /v1/runs/{runId}/approvals/{nodeId}',
      `/v1/runs/${t.approvalRun}/approvals/gate`,
      { action: 'accept' },
      true,
    ],
    ['POST /v1/runs/{runId}/cancel', `/v1/runs/${t.approvalRun}/cancel`, { reason: 'fuzz' }, true],
    ['POST /v1/runs/{runId}:fork', `/v1/runs/${t.terminalRun}:fork`, { mode: 'replay', fromSeq: 0 }, true],
    [
      'POST /v1/runs/{runId}:resolveInterrupt',
      `/v1/runs/${t.clarificationRun}:resolveInterrupt`,
      { nodeId: 'ask', resumeValue: { answers: { q1: 'x' } } },
      true,
    ],
    [
      'POST /v1/interrupts/{token}',
      `/v1/interrupts/${t.token}`,
      { resumeValue: { action: 'accept' } },
      false,
    ],
    [
      'POST /v1/workflows',
      '/v1/workflows',
      {
        id: 'fuzz-refused',
        name: 'x',
        version: '1.0.0',
        nodes: [{ id: 'a', typeId: 'core.noop', config: {} }],
        edges: [],
        triggers: [],
        variables: [],
        metadata: {},
        settings: {},
      },
      true,
    ],
  ];
}

/** `application/x-www-form-urlencoded` of a flat rendering of `v`. */
function formOf(v: Record<string, unknown>): string {
  return Object.entries(v)
    .map(
      ([k, x]) =>
        `${encodeURIComponent(k)}=${encodeURIComponent(typeof x === 'string' ? x : JSON.stringify(x))}`,
    )
    .join('&');
}

/**
 * Hostile requests the host must refuse (so a batch of them writes nothing): JSON nested 3,000 deep
 * and YAML alias bombs, content types other than JSON (415) and bodies of the wrong JSON type (400)
 * on every POST route, crafted cursors on every list route, odd numbers in every numeric query
 * parameter, oversize workflows. `limits` is discovery's (`maxWorkflowNodes`-like bounds, if any).
 */
export function refusedHostileRequests(
  t: HostileTargets,
  keys: Keys,
  limits: { nodes?: number | undefined; edges?: number | undefined } = {},
  extraRoutes: readonly { method: string; path: string }[] = [],
): HostileRequest[] {
  const out: HostileRequest[] = [];
  const bearer = { authorization: `Bearer ${keys.t1}` };
  const req = (
    cls: HostileClass,
    endpoint: string,
    method: string,
    path: string,
    headers: Headers,
    body: string | undefined,
    expect?: readonly number[],
  ): HostileRequest => ({
    cls,
    endpoint,
    method,
    path,
    headers,
    ...(body !== undefined ? { body } : {}),
    mutating: method === 'POST',
    targets: [],
    ...(expect ? { expect } : {}),
  });
  // POST routes of the OpenAPI document no builder above knows (added since): an empty object as the valid body.
  const extraPosts: [string, string, Record<string, unknown>, boolean][] = extraRoutes
    .filter((r) => r.method === 'POST')
    .map((r) => {
      let i = 0;
      return [
        `${r.method} ${r.path}`,
        r.path.replace(/\{[^}]+\}/g, () => (i++ === 0 ? t.approvalRun : 'gate')),
        { reason: 'fuzz' },
        true,
      ];
    });
  for (const [endpoint, path, valid, withAuth] of [...postRoutes(t), ...extraPosts]) {
    const auth = withAuth ? bearer : {};
    const json = { ...auth, 'content-type': 'application/json' };
    // JSON nested deeper than any request needs: the whole body, and a value inside a valid body.
    for (const shape of ['object', 'array', 'mixed'] as const)
      out.push(req('deep-json', endpoint, 'POST', path, json, deepJson(3000, shape), [400]));
    const firstKey = Object.keys(valid)[0]!;
    out.push(
      req(
        'deep-json',
        endpoint,
        'POST',
        path,
        json,
        JSON.stringify({ ...valid, [firstKey]: '@@' }).replace('"@@"', deepJson(3000, 'mixed')),
        [400],
      ),
    );
    // Content types other than JSON (YAML is also accepted on workflow registration).
    out.push(
      req(
        'content-type',
        endpoint,
        'POST',
        path,
        { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        formOf(valid),
        [415],
      ),
    );
    out.push(
      req(
        'content-type',
        endpoint,
        'POST',
        path,
        { ...auth, 'content-type': 'text/plain' },
        JSON.stringify(valid),
        [415],
      ),
    );
    out.push(
      req(
        'content-type',
        endpoint,
        'POST',
        path,
        { ...auth, 'content-type': 'multipart/form-data; boundary=XyZ' },
        `--XyZ\r\nContent-Disposition: form-data; name="${firstKey}"\r\n\r\n${JSON.stringify(valid[firstKey])}\r\n--XyZ--\r\n`,
        [415],
      ),
    );
    out.push(
      req('content-type', endpoint, 'POST', path, { ...auth, 'content-type': 'application/xml' }, '<a/>', [
        415,
      ]),
    );
    // Bodies of the wrong JSON type.
    for (const wrong of [
      '[]',
      `[${JSON.stringify(valid)}]`,
      JSON.stringify(String(valid[firstKey])),
      'null',
      '42',
      'true',
    ]) {
      out.push(req('wrong-json-type', endpoint, 'POST', path, json, wrong, [400]));
    }
  }
  // YAML alias bombs on registration (and one in a JSON content type: it is not JSON).
  const yaml = { ...bearer, 'content-type': 'application/yaml' };
  out.push(
    req('yaml-alias-bomb', 'POST /v1/workflows', 'POST', '/v1/workflows', yaml, yamlAliasBomb(9), [400, 413]),
  );
  out.push(
    req(
      'yaml-alias-bomb',
      'POST /v1/workflows',
      'POST',
      '/v1/workflows',
      yaml,
      yamlAliasBomb(12, true),
      [400, 413],
    ),
  );
  out.push(
    req(
      'yaml-alias-bomb',
      'POST /v1/workflows',
      'POST',
      '/v1/workflows',
      { ...bearer, 'content-type': 'text/yaml' },
      '&a [*a, *a]\n',
      [400],
    ),
  );
  out.push(
    req(
      'yaml-alias-bomb',
      'POST /v1/workflows',
      'POST',
      '/v1/workflows',
      { ...bearer, 'content-type': 'application/json' },
      yamlAliasBomb(6),
      [400],
    ),
  );
  // Crafted cursors on every list route.
  for (const [cursor, bad] of CRAFTED_CURSORS) {
    for (const [endpoint, path] of [
      ['GET /v1/runs', '/v1/runs'],
      ['GET /v1/interrupts', '/v1/interrupts'],
    ] as const) {
      out.push(
        req(
          'crafted-cursor',
          endpoint,
          'GET',
          `${path}?cursor=${enc(cursor)}`,
          bearer,
          undefined,
          bad ? [400] : undefined,
        ),
      );
      out.push(
        req(
          'crafted-cursor',
          endpoint,
          'GET',
          `${path}?limit=1&cursor=${enc(cursor)}`,
          { authorization: `Bearer ${keys.t2}` },
          undefined,
          bad ? [400] : undefined,
        ),
      );
    }
  }
  // Odd numbers in every numeric query parameter.
  const numeric: [string, string, string[]][] = [
    ['GET /v1/runs', '/v1/runs', ['limit']],
    ['GET /v1/interrupts', '/v1/interrupts', ['limit', 'minAgeMs', 'maxAgeMs']],
    ['GET /v1/runs/{runId}/events (JSON)', `/v1/runs/${t.approvalRun}/events`, ['after']],
    [
      'GET /v1/runs/{runId}/events/poll',
      `/v1/runs/${t.approvalRun}/events/poll`,
      ['after', 'lastSequence', 'timeoutMs', 'timeout'],
    ],
    [
      'GET /v1/runs/{runId}/conversations/{conversationId}',
      `/v1/runs/${t.approvalRun}/conversations/${enc(`${t.approvalRun}:gate:1`)}`,
      ['after', 'limit'],
    ],
  ];
  for (const [endpoint, path, params] of numeric) {
    for (const p of params) {
      for (const v of ODD_QUERY_NUMBERS) {
        out.push(
          req(
            'odd-numbers',
            endpoint,
            'GET',
            `${path}?${p}=${enc(v)}`,
            { ...bearer, accept: 'application/json' },
            undefined,
            BAD_QUERY_NUMBERS.has(v)
              ? [400]
              : endpoint.includes('conversations')
                ? [200, 400, 404]
                : undefined,
          ),
        );
      }
    }
  }
  // Oversize workflows: past the advertised bounds (or far past any sensible one when none is advertised).
  const nodes = limits.nodes ? limits.nodes + 1 : 10_001;
  out.push(
    req(
      'oversize-workflow',
      'POST /v1/workflows',
      'POST',
      '/v1/workflows',
      { ...bearer, 'content-type': 'application/json' },
      JSON.stringify(bigWorkflow('fuzz-oversize-nodes', nodes, 'parallel')),
      [400, 413],
    ),
  );
  const edges = limits.edges ? limits.edges + 1 : 20_001;
  out.push(
    req(
      'oversize-workflow',
      'POST /v1/workflows',
      'POST',
      '/v1/workflows',
      { ...bearer, 'content-type': 'application/json' },
      JSON.stringify(bigWorkflow('fuzz-oversize-edges', 50, 'dense', edges)),
      [400, 413],
    ),
  );
  return out;
}

/**
 * Resume values and bodies with keys named after Object.prototype members at every level, as raw
 * JSON (`__proto__` survives only that way): `wrap` puts the value where the route expects it.
 */
export function protoKeyBodies(key: string, answer: string): string[] {
  const k = JSON.stringify(key);
  return [
    `{"resumeValue":{${k}:${answer}}}`,
    `{"resumeValue":${answer.replace(/^\{/, `{${k}:{${k}:{${k}:1}},`)}}`,
    `{${k}:{"action":"accept"},"resumeValue":${answer}}`,
    `{"resumeValue":${answer.replace(/^\{/, `{${k}:"accept",`)}}`,
    `{"resumeValue":${answer.replace(/^\{/, `{${k}:[{${k}:null}],`)}}`,
  ];
}
