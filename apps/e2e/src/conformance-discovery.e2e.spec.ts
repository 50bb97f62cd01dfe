import { spawnSync } from 'node:child_process';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';

// Discovery, the OpenAPI document, the /docs reference, the error envelope and tenant isolation,
// black-box against both modes: what a generic client (or the conformance suite's discovery, errors
// and cross-workspace-isolation families) sees from outside.

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Record<string, unknown> | undefined;
}

async function call(
  base: string,
  method: string,
  path: string,
  options: { key?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The spec's envelope: exactly `error`, `message` and an optional object `details`, nothing else at the top. */
function expectEnvelope(res: Answer, status: number, code: string): void {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status, error: code });
  expect(typeof res.json?.message).toBe('string');
  expect(Object.keys(res.json!).filter((k) => !['error', 'message', 'details'].includes(k))).toEqual([]);
  if (res.json!.details !== undefined)
    expect(typeof res.json!.details === 'object' && res.json!.details !== null).toBe(true);
}

/** Validates an OpenAPI document with @seriousme/openapi-schema-validator (an ES module, so in a child process). */
function validateOpenApi(doc: unknown): { valid: boolean; version: string; errors: unknown[] } {
  const script =
    "import { Validator } from '@seriousme/openapi-schema-validator'; let s = ''; for await (const c of process.stdin) s += c; " +
    'const v = new Validator(); const r = await v.validate(JSON.parse(s)); console.log(JSON.stringify({ valid: r.valid, version: v.version, errors: r.errors ?? [] }));';
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(doc),
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`validator failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as { valid: boolean; version: string; errors: unknown[] };
}

const SPEC_LIMIT_KEYS = [
  'clarificationRounds',
  'schemaRounds',
  'envelopesPerTurn',
  'maxNodeExecutions',
  'maxRunDurationMs',
  'maxLoopIterations',
  'maxBudgetTokens',
  'maxBudgetCostUsd',
  'maxRequestBodyBytes',
];

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'conformance: discovery, OpenAPI, errors and isolation, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let base: string;
    beforeAll(async () => {
      hut = await MODES[mode]();
      base = hut.host.gateways[0]!;
    });
    afterAll(async () => {
      await hut?.stop();
    });

    describe('discovery', () => {
      it('answers without credentials with the required fields, a Cache-Control and JSON', async () => {
        const res = await call(base, 'GET', '/.well-known/openwop');
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
        for (const field of ['protocolVersion', 'supportedEnvelopes', 'schemaVersions', 'limits'])
          expect({ field, present: res.json?.[field] !== undefined }).toEqual({ field, present: true });
        expect(res.json?.protocolVersion).toMatch(/^1\./);
      });

      it('advertises clarification.request among its envelopes and only schema-valid, enforced limits', async () => {
        const doc = (await call(base, 'GET', '/.well-known/openwop')).json!;
        expect(doc.supportedEnvelopes).toContain('clarification.request');
        expect(doc.schemaVersions).toEqual({ 'clarification.request': 1 });
        const limits = doc.limits as Record<string, unknown>;
        expect(Object.keys(limits).filter((k) => !SPEC_LIMIT_KEYS.includes(k))).toEqual([]);
        for (const k of ['clarificationRounds', 'schemaRounds', 'envelopesPerTurn'])
          expect({ k, ok: Number.isInteger(limits[k]) && (limits[k] as number) > 0 }).toEqual({
            k,
            ok: true,
          });
        const extensions = doc.extensions as { limits: Record<string, number> };
        expect(extensions.limits.maxWorkflowNodes).toBeGreaterThan(0);
      });

      it('lists fixtures as unique non-empty strings, each one a workflow the host can read', async () => {
        const fixtures = (await call(base, 'GET', '/.well-known/openwop')).json!.fixtures as string[];
        expect(fixtures.length).toBeGreaterThan(0);
        expect(new Set(fixtures).size).toBe(fixtures.length);
        for (const id of fixtures) {
          const res = await call(base, 'GET', `/v1/workflows/${encodeURIComponent(id)}`, {
            key: TEST_KEYS.t1,
          });
          expect({ id, status: res.status }).toEqual({ id, status: 200 });
        }
      });

      it('advertises the families it has at the document root: agents, conversations, replay, pause/resume, idempotency', async () => {
        const doc = (await call(base, 'GET', '/.well-known/openwop')).json!;
        expect(doc).toMatchObject({
          agents: { supported: true, reasoning: { verbosity: 'off' } },
          conversationPrimitive: true,
          multiPartyConversation: { supported: true },
          replay: { supported: true, modes: ['replay', 'branch'] },
          runs: { pauseResume: { supported: true } },
          idempotency: { supported: true, layer1RetentionSeconds: 86_400 },
          extensions: {
            durableTimers: { supported: true },
            bulkCancel: { supported: true },
            resolutionTokens: { supported: true },
          },
        });
        expect((doc.extensions as { interrupts: { kinds: string[] } }).interrupts.kinds).toEqual(
          expect.arrayContaining(['approval', 'clarification', 'external-event', 'low-confidence']),
        );
      });

      it('revalidates with If-None-Match to 304 even with Cache-Control: no-cache, on every gateway, with one validator', async () => {
        const first = await call(base, 'GET', '/.well-known/openwop');
        const etag = first.headers.get('etag')!;
        expect(etag).toMatch(/^"[^"]+"$/);
        expect(first.headers.get('capabilities-etag')).toBe(etag);
        for (const gateway of hut.host.gateways) {
          // Node's fetch itself adds `Cache-Control: no-cache` to a conditional request; say it explicitly too.
          const variants: Record<string, string>[] = [
            { 'if-none-match': etag },
            { 'if-none-match': etag, 'cache-control': 'no-cache' },
            { 'if-none-match': `W/${etag}, "other"` },
          ];
          for (const headers of variants) {
            const again = await call(gateway, 'GET', '/.well-known/openwop', { headers });
            expect({ status: again.status, body: again.text, etag: again.headers.get('etag') }).toEqual({
              status: 304,
              body: '',
              etag,
            });
          }
          const stale = await call(gateway, 'GET', '/.well-known/openwop', {
            headers: { 'if-none-match': '"not-the-current-one"' },
          });
          expect(stale.status).toBe(200);
          expect(stale.text).toBe(first.text);
        }
      });
    });

    describe('OpenAPI document and reference page', () => {
      it('serves a valid OpenAPI 3.1 document without credentials, with an opaque-key security scheme', async () => {
        const res = await call(base, 'GET', '/v1/openapi.json');
        expect(res.status).toBe(200);
        expect(res.json?.openapi).toMatch(/^3\.1\./);
        expect(validateOpenApi(res.json)).toEqual({ valid: true, version: '3.1', errors: [] });
        const schemes = (res.json!.components as { securitySchemes: Record<string, Record<string, unknown>> })
          .securitySchemes;
        expect(Object.values(schemes)).toEqual([expect.objectContaining({ type: 'http', scheme: 'bearer' })]);
        expect(Object.values(schemes)[0]!.bearerFormat).toBeUndefined();
        const again = await call(base, 'GET', '/v1/openapi.json', {
          headers: { 'if-none-match': res.headers.get('etag')! },
        });
        expect(again.status).toBe(304);
      });

      it('documents routes that exist: every keyed operation answers 401 without a key, every public one answers', async () => {
        const doc = (await call(base, 'GET', '/v1/openapi.json')).json as {
          paths: Record<
            string,
            Record<string, { security: Record<string, string[]>[]; responses: Record<string, unknown> }>
          >;
        };
        const samples: Record<string, string> = { asset: 'init.js', name: 'app.js' };
        let checked = 0;
        for (const [template, ops] of Object.entries(doc.paths)) {
          const path = template.replace(/\{([^}]+)\}/g, (_m, p: string) => samples[p] ?? 'x');
          for (const [method, op] of Object.entries(ops)) {
            // Streams and long polls are exercised elsewhere; here only that the route exists.
            const res = await call(base, method.toUpperCase(), path, method === 'post' ? { body: {} } : {});
            const keyed = op.security.length > 0;
            if (keyed) expectEnvelope(res, 401, 'unauthenticated');
            else
              expect({
                template,
                method,
                // The router's own answer to a path it does not know (a route may answer 404 for its resource).
                unmatched:
                  res.status === 404 &&
                  res.json?.error === 'not_found' &&
                  String(res.json?.message).startsWith('No route '),
              }).toEqual({ template, method, unmatched: false });
            expect({ template, method, documented: String(res.status) in op.responses }).toEqual({
              template,
              method,
              documented: true,
            });
            checked += 1;
          }
        }
        expect(checked).toBeGreaterThan(25);
      });

      it('documents every error status a route answers with the error envelope schema', async () => {
        const doc = (await call(base, 'GET', '/v1/openapi.json')).json as {
          paths: Record<
            string,
            Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
          >;
        };
        const runOp = doc.paths['/v1/runs/{runId}']!.get!;
        expect(Object.keys(runOp.responses)).toEqual(
          expect.arrayContaining(['200', '401', '403', '404', '500']),
        );
        expect(JSON.stringify(runOp.responses['404']!.content!['application/json']!.schema)).toContain(
          '#/components/schemas/ErrorEnvelope',
        );
        const create = doc.paths['/v1/runs']!.post! as unknown as {
          parameters: { name: string }[];
          requestBody: unknown;
          responses: Record<string, unknown>;
        };
        expect(create.parameters.map((p) => p.name)).toContain('Idempotency-Key');
        expect(create.requestBody).toBeDefined();
        expect(Object.keys(create.responses)).toEqual(
          expect.arrayContaining(['201', '400', '409', '413', '415']),
        );
      });

      it('serves /docs from its own origin: the page, its scripts and styles, no other host', async () => {
        const page = await call(base, 'GET', '/docs');
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
        const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
        expect(refs.length).toBeGreaterThanOrEqual(3);
        expect(refs.filter((r) => !r.startsWith('/docs/'))).toEqual([]);
        for (const ref of refs) {
          const asset = await call(base, 'GET', ref);
          expect({ ref, status: asset.status }).toEqual({ ref, status: 200 });
        }
        expect((await call(base, 'GET', '/docs/init.js')).text).toContain("'/v1/openapi.json'");
        expectEnvelope(await call(base, 'GET', '/docs/not-a-file.js'), 404, 'not_found');
      });
    });

    describe('errors', () => {
      it('answers an unknown run, an empty create, an unknown route and a missing key with the bare envelope', async () => {
        const unknown = await call(base, 'GET', `/v1/runs/conformance-no-such-run-${Date.now()}`, {
          key: TEST_KEYS.t1,
        });
        expectEnvelope(unknown, 404, 'not_found');
        expect(unknown.json!.correlationId).toBeUndefined();
        expectEnvelope(
          await call(base, 'POST', '/v1/runs', { key: TEST_KEYS.t1, body: {} }),
          400,
          'validation_error',
        );
        expectEnvelope(await call(base, 'GET', '/v1/no-such-route', { key: TEST_KEYS.t1 }), 404, 'not_found');
        expectEnvelope(await call(base, 'GET', '/v1/runs'), 401, 'unauthenticated');
      });
    });

    describe('cross-tenant isolation', () => {
      it("hides one tenant's run from another exactly like a run that does not exist, on every run route", async () => {
        const created = await call(base, 'POST', '/v1/runs', {
          key: TEST_KEYS.t1,
          body: { workflowId: 'conformance-noop' },
        });
        expect(created.status).toBe(201);
        const runId = created.json!.runId as string;
        const snapshot = await waitFor(
          async () => {
            const s = await call(base, 'GET', `/v1/runs/${runId}`, { key: TEST_KEYS.t1 });
            return s.json?.status === 'completed' ? s.json : undefined;
          },
          { timeoutMs: 10_000, what: 'run completed' },
        );
        // RFC 0048 §C: the owner echo carries a non-empty tenant.
        expect((snapshot.owner as { tenant?: string }).tenant).toBe('t1');

        const missing = `00000000-0000-4000-8000-${String(Date.now()).padStart(12, '0').slice(-12)}`;
        const routes: [string, string, unknown?][] = [
          ['GET', '/v1/runs/{id}'],
          ['GET', '/v1/runs/{id}/events?after=-1'],
          ['GET', '/v1/runs/{id}/events/poll?timeoutMs=0'],
          ['GET', '/v1/runs/{id}/conversations'],
          ['POST', '/v1/runs/{id}/cancel', {}],
          ['POST', '/v1/runs/{id}:pause', {}],
          ['POST', '/v1/runs/{id}:fork', { mode: 'replay' }],
        ];
        for (const [method, template, body] of routes) {
          const other = await call(base, method, template.replace('{id}', runId), {
            key: TEST_KEYS.t2,
            ...(body !== undefined ? { body } : {}),
          });
          const absent = await call(base, method, template.replace('{id}', missing), {
            key: TEST_KEYS.t2,
            ...(body !== undefined ? { body } : {}),
          });
          expectEnvelope(other, 404, 'not_found');
          expect({ template, other: (other.json!.message as string).replace(runId, '<id>') }).toEqual({
            template,
            other: (absent.json!.message as string).replace(missing, '<id>'),
          });
        }
        const listed = await call(base, 'GET', '/v1/runs?limit=200', { key: TEST_KEYS.t2 });
        expect((listed.json!.runs as { runId: string }[]).map((r) => r.runId)).not.toContain(runId);
        const bulk = await call(base, 'POST', '/v1/runs:bulk-cancel', {
          key: TEST_KEYS.t2,
          body: { runIds: [runId] },
        });
        expect(bulk.json!.results).toEqual([
          expect.objectContaining({
            runId,
            ok: false,
            error: expect.objectContaining({ code: 'not_found' }),
          }),
        ]);
        // The owner still reads it, unchanged.
        expect((await call(base, 'GET', `/v1/runs/${runId}`, { key: TEST_KEYS.t1 })).json?.status).toBe(
          'completed',
        );
      });
    });
  },
);
