import {
  createTestDatabase,
  startDistributedStack,
  startEmbeddedHost,
  TEST_KEYS,
  waitFor,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';

// `GET /metrics` of every app, as Prometheus scrapes it, and the `/healthz` and `/readyz` probes on
// the same listener: the built apps as separate processes.

const AUTH = { authorization: `Bearer ${TEST_KEYS.t1}`, 'content-type': 'application/json' };

/** The metric families each app exposes, by Prometheus name. */
const EXPECTED: Record<string, readonly string[]> = {
  engine: ['openwop_bus_consumer_lag', 'openwop_bus_dead_letters_total'],
  interrupt: [
    'openwop_interrupt_requested_total',
    'openwop_interrupt_duration_seconds',
    'openwop_conversation_turns_total',
    'openwop_bus_consumer_lag',
    'openwop_bus_dead_letters_total',
  ],
  token: ['openwop_token_verifications_total', 'openwop_bus_consumer_lag', 'openwop_bus_dead_letters_total'],
  projector: [
    'openwop_interrupt_pending',
    'openwop_interrupt_oldest_age_seconds',
    'openwop_bus_consumer_lag',
    'openwop_bus_dead_letters_total',
  ],
  gateway: ['target_info', 'http_server_request_duration_seconds'],
  notifier: ['openwop_bus_consumer_lag', 'openwop_bus_dead_letters_total', 'process_uptime_seconds'],
};
const ALL = [...new Set(Object.values(EXPECTED).flat())];

/** Metric family names (`# TYPE <name> <type>`) of a scrape. */
async function scrape(
  url: string,
): Promise<{ status: number; contentType: string | null; families: Set<string>; text: string }> {
  const res = await fetch(url);
  const text = await res.text();
  const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  return { status: res.status, contentType: res.headers.get('content-type'), families, text };
}

/** Starts an approval run, waits for it to wait, and resolves it through a signed token (so every app acts). */
async function approveOnce(gateway: string): Promise<string> {
  const created = await fetch(`${gateway}/v1/runs`, {
    method: 'POST',
    headers: AUTH,
    body: JSON.stringify({ workflowId: 'conformance-approval' }),
  });
  const { runId } = (await created.json()) as { runId: string };
  const callbackUrl = await waitFor(
    async () => {
      const run = (await (await fetch(`${gateway}/v1/runs/${runId}`, { headers: AUTH })).json()) as {
        status: string;
        interrupt?: { callbackUrl?: string };
      };
      return run.status === 'waiting-approval' && run.interrupt?.callbackUrl;
    },
    { timeoutMs: 30_000, what: 'the run to wait for approval with a callback URL' },
  );
  const resolved = await fetch(callbackUrl.replace(/^https?:\/\/[^/]+/, gateway), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'accept' }),
  });
  expect(resolved.status).toBe(200);
  return runId;
}

describe('distributed: every service on its own METRICS_PORT', () => {
  let db: TestDatabase;
  let host: RunningHost;
  const metricsUrl = new Map<string, string>();

  beforeAll(async () => {
    db = await createTestDatabase('e2e_metrics');
    host = await startDistributedStack({
      databaseUrl: db.url,
      instances: 1,
      env: { METRICS_PORT: '0', KAFKA_LAG_SAMPLE_MS: '500' },
    });
    for (const proc of host.processes) {
      const port = /metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(proc.output())?.[1];
      if (port) metricsUrl.set(proc.name, `http://127.0.0.1:${port}/metrics`);
    }
  }, 180_000);
  afterAll(async () => {
    await host?.stop();
    await db?.drop();
  });

  it('exposes the metrics of each app on its listener, unauthenticated', async () => {
    expect([...metricsUrl.keys()].sort()).toEqual([
      'engine',
      'gateway',
      'interrupt',
      'notifier',
      'projector',
      'token',
    ]);
    await approveOnce(host.gateways[0]!);
    for (const [app, names] of Object.entries(EXPECTED)) {
      const scraped = await waitFor(
        async () => {
          const s = await scrape(metricsUrl.get(app)!);
          return names.every((n) => s.families.has(n)) && s;
        },
        { timeoutMs: 20_000, what: `${app} to expose ${names.join(', ')}` },
      );
      expect(scraped.status).toBe(200);
      expect(scraped.contentType).toContain('text/plain');
      expect(scraped.text).toContain(`service_name="openwop-${app}"`);
    }
    const interrupt = await scrape(metricsUrl.get('interrupt')!);
    expect(interrupt.text).toMatch(
      /openwop_interrupt_duration_seconds_count\{openwop_interrupt_kind="approval",openwop_interrupt_outcome="resolved",openwop_run_status="resolved"\} 1/,
    );
    const token = await scrape(metricsUrl.get('token')!);
    expect(token.text).toMatch(/openwop_token_verifications_total\{openwop_token_outcome="ok"\} [1-9]/);
  });

  it('serves /healthz and /readyz on the metrics listener of every process, unauthenticated', async () => {
    expect([...metricsUrl.keys()].sort()).toEqual([
      'engine',
      'gateway',
      'interrupt',
      'notifier',
      'projector',
      'token',
    ]);
    for (const [app, url] of metricsUrl) {
      const base = url.replace(/\/metrics$/, '');
      const live = await fetch(`${base}/healthz`);
      expect({ app, status: live.status, body: await live.json() }).toEqual({
        app,
        status: 200,
        body: { status: 'ok' },
      });
      const ready = await fetch(`${base}/readyz`);
      expect({ app, status: ready.status, body: await ready.json() }).toEqual({
        app,
        status: 200,
        body: { status: 'ready', checks: { bus: 'up', database: 'up' } },
      });
      const unknown = await fetch(`${base}/nope`);
      expect({ app, status: unknown.status, body: await unknown.json() }).toMatchObject({
        app,
        status: 404,
        body: { error: 'not_found' },
      });
    }
  });

  it('does not serve /metrics on the gateway API port when METRICS_PORT is set', async () => {
    const res = await fetch(`${host.gateways[0]}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('embedded: every metric on the gateway port', () => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startEmbeddedHost();
  }, 120_000);
  afterAll(async () => {
    await host?.stop();
  });

  it('serves GET /metrics without credentials with the metrics of all apps', async () => {
    const gateway = host.gateways[0]!;
    const runId = await approveOnce(gateway);
    expect(runId).toBeTruthy();
    const scraped = await waitFor(
      async () => {
        const s = await scrape(`${gateway}/metrics`);
        return ALL.every((n) => s.families.has(n)) && s;
      },
      { timeoutMs: 20_000, what: `the embedded host to expose ${ALL.join(', ')}` },
    );
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('service_name="openwop-embedded"');
    expect(scraped.text).toMatch(/openwop_interrupt_requested_total\{openwop_interrupt_kind="approval"\} 1/);
  });

  it('counts each conversation turn the gate records once (a retried turn is not a new one)', async () => {
    const gateway = host.gateways[0]!;
    const post = (path: string, body: unknown) =>
      fetch(`${gateway}${path}`, { method: 'POST', headers: AUTH, body: JSON.stringify(body) });
    const definition = {
      id: 'metrics-conversation',
      name: 'metrics-conversation',
      version: '1.0.0',
      nodes: [{ id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'Plan it' } }],
      edges: [],
    };
    expect((await post('/v1/workflows', definition)).status).toBeLessThan(300);
    const { runId } = (await (await post('/v1/runs', { workflowId: 'metrics-conversation' })).json()) as {
      runId: string;
    };
    await waitFor(
      async () =>
        ((await (await fetch(`${gateway}/v1/runs/${runId}`, { headers: AUTH })).json()) as { status: string })
          .status === 'waiting-approval',
      { timeoutMs: 30_000, what: 'the conversation to wait for a turn' },
    );
    const turn = (messageId: string, content: string) => ({
      nodeId: 'talk',
      operation: 'exchange',
      turn: { messageId, from: 'user', role: 'user', content },
    });
    for (const [id, text] of [
      ['m1', 'Where?'],
      ['m1', 'Where?'],
      ['m2', 'When?'],
    ] as const) {
      expect((await post(`/v1/runs/${runId}:resolveInterrupt`, turn(`${runId}-${id}`, text))).status).toBe(
        200,
      );
    }
    const scraped = await scrape(`${gateway}/metrics`);
    expect(scraped.text).toMatch(
      /openwop_conversation_turns_total\{openwop_interrupt_kind="conversation\.exchange"\} 2\n/,
    );
  });
});

/** `# TYPE` and `# UNIT` of every family of a scrape. */
function families(text: string): Map<string, { type: string; unit?: string }> {
  const found = new Map<string, { type: string; unit?: string }>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) found.set(name!, { type: type! });
  for (const [, name, unit] of text.matchAll(/^# UNIT (\S+) (\S+)$/gm)) {
    const family = found.get(name!);
    if (family) family.unit = unit!;
  }
  return found;
}

/** Complete lines a process wrote to stdout and stderr so far (a line still being written is left out). */
function linesOf(output: string): string[] {
  return output
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.trim() !== '');
}

/** The Prometheus families, type and unit every process exposes once it answered a request. */
const EVERY_PROCESS: Record<string, { type: string; unit?: string }> = {
  http_server_request_duration_seconds: { type: 'histogram', unit: 'seconds' },
  process_cpu_time_seconds_total: { type: 'counter', unit: 'seconds' },
  process_memory_usage_bytes: { type: 'gauge', unit: 'bytes' },
  v8js_memory_heap_used_bytes: { type: 'gauge', unit: 'bytes' },
  process_uptime_seconds: { type: 'gauge', unit: 'seconds' },
  nodejs_eventloop_delay_p99_seconds: { type: 'gauge', unit: 'seconds' },
};

/** The host's own families across its processes (each has one owner process in the distributed mode). */
const HOST: Record<string, { type: string; unit?: string }> = {
  openwop_interrupt_requested_total: { type: 'counter' },
  openwop_interrupt_duration_seconds: { type: 'histogram', unit: 'seconds' },
  openwop_interrupt_pending: { type: 'gauge' },
  openwop_interrupt_oldest_age_seconds: { type: 'gauge', unit: 'seconds' },
  openwop_conversation_turns_total: { type: 'counter' },
  openwop_token_verifications_total: { type: 'counter' },
  openwop_bus_consumer_lag: { type: 'gauge' },
  openwop_bus_dead_letters_total: { type: 'counter' },
};

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  '%s: metric names and units, JSON logs, access lines',
  (mode) => {
    let hut: HostUnderTest;
    const metricsUrl = new Map<string, string>();
    const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

    beforeAll(async () => {
      hut = await MODES[mode]({
        METRICS_PORT: '0',
        KAFKA_LAG_SAMPLE_MS: '500',
        // Tracing on, towards a collector that is not there: the failed exports must be log lines too.
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        OTEL_EXPORTER_OTLP_TIMEOUT: '300',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      for (const [i, proc] of hut.host.processes.entries()) {
        const port = /metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(proc.output())?.[1];
        if (port) metricsUrl.set(`${proc.name}-${i}`, `http://127.0.0.1:${port}/metrics`);
      }
      const gateway = hut.host.gateways[0]!;
      await approveOnce(gateway);
      // A conversation turn: the projector writes the conversation tables (the embedded mode's
      // unpipelined connection once queued statements there).
      const post = (path: string, body: unknown) =>
        fetch(`${gateway}${path}`, { method: 'POST', headers: AUTH, body: JSON.stringify(body) });
      const definition = {
        id: `naming-conversation`,
        name: 'naming',
        version: '1.0.0',
        nodes: [{ id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'Plan it' } }],
        edges: [],
      };
      expect((await post('/v1/workflows', definition)).status).toBeLessThan(300);
      const { runId } = (await (await post('/v1/runs', { workflowId: definition.id })).json()) as {
        runId: string;
      };
      await waitFor(
        async () =>
          (
            (await (await fetch(`${gateway}/v1/runs/${runId}`, { headers: AUTH })).json()) as {
              status: string;
            }
          ).status === 'waiting-approval',
        { timeoutMs: 30_000, what: 'the conversation to wait for a turn' },
      );
      const turn = {
        nodeId: 'talk',
        operation: 'exchange',
        turn: { messageId: `${runId}-m1`, from: 'user', role: 'user', content: 'Where?' },
      };
      expect((await post(`/v1/runs/${runId}:resolveInterrupt`, turn)).status).toBe(200);
      expect(
        (
          await fetch(`${gateway}/v1/runs?limit=1`, {
            headers: { ...AUTH, traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
          })
        ).status,
      ).toBe(200);
      // A route with a literal colon: its label is written without Express' escape.
      expect((await post('/v1/interrupts:bulk-resolve', { items: [] })).status).toBeLessThan(500);
    }, 240_000);
    afterAll(async () => {
      await hut?.stop();
    });

    it('names every family the Prometheus way: the unit as a suffix (and in # UNIT), counters in _total', async () => {
      expect(metricsUrl.size).toBe(hut.host.processes.length);
      const all = new Map<string, { type: string; unit?: string }>();
      for (const [proc, url] of metricsUrl) {
        await fetch(url); // the listener's own request, so its HTTP histogram has a point on the next scrape
        const scraped = await waitFor(
          async () => {
            const s = await scrape(url);
            return Object.keys(EVERY_PROCESS).every((n) => s.families.has(n)) && s;
          },
          { timeoutMs: 20_000, what: `${proc} to expose ${Object.keys(EVERY_PROCESS).join(', ')}` },
        );
        const found = families(scraped.text);
        for (const [name, want] of Object.entries(EVERY_PROCESS))
          expect({ proc, name, ...found.get(name) }).toEqual({ proc, name, ...want });
        for (const [name, family] of found) {
          all.set(name, family);
          if (family.type === 'counter')
            expect({ proc, name, total: name.endsWith('_total') }).toEqual({ proc, name, total: true });
          if (family.unit !== undefined) {
            const base = family.type === 'counter' ? name.replace(/_total$/, '') : name;
            expect({ proc, name, suffixed: base.endsWith(`_${family.unit}`) }).toEqual({
              proc,
              name,
              suffixed: true,
            });
          }
        }
      }
      await waitFor(
        async () => {
          for (const url of metricsUrl.values())
            for (const [name, family] of families((await scrape(url)).text)) all.set(name, family);
          return Object.keys(HOST).every((n) => all.has(n));
        },
        { timeoutMs: 20_000, what: `the host to expose ${Object.keys(HOST).join(', ')}` },
      );
      for (const [name, want] of Object.entries(HOST))
        expect({ name, ...all.get(name) }).toEqual({ name, ...want });
      for (const unitless of ['openwop_interrupt_duration', 'openwop_interrupt_oldest_age'])
        expect(all.has(unitless)).toBe(false);
    });

    it('labels HTTP server durations by method, route and status, and interrupt durations by kind and outcome as the spec names them', async () => {
      const texts = await Promise.all([...metricsUrl.values()].map(async (url) => (await scrape(url)).text));
      const joined = texts.join('\n');
      expect(joined).toMatch(
        /^http_server_request_duration_seconds_count\{http_request_method="POST",http_response_status_code="201",url_scheme="http",http_route="\/v1\/runs"\} [1-9]/m,
      );
      expect(joined).toMatch(
        /^http_server_request_duration_seconds_count\{http_request_method="GET",http_response_status_code="200",url_scheme="http",http_route="\/metrics"\} [1-9]/m,
      );
      expect(joined).toMatch(/http_route="\/v1\/interrupts:bulk-resolve"/);
      expect(joined).not.toContain('\\\\:');
      // observability.md: openwop.interrupt.duration is attributed by openwop.interrupt_kind and openwop.run_status (resolved | timeout | cancelled);
      // that value is the interrupt's outcome, so it is also under the honest name openwop_interrupt_outcome.
      expect(joined).toMatch(
        /^openwop_interrupt_duration_seconds_count\{openwop_interrupt_kind="approval",openwop_interrupt_outcome="resolved",openwop_run_status="resolved"\} [1-9]/m,
      );
      expect(joined).not.toMatch(/\/v1\/runs\/[0-9a-f-]{36}/); // routes, never paths
    });

    it('writes only JSON lines on stdout and stderr, failed OTLP exports and process warnings included', async () => {
      // The exports to the absent collector fail within a second: they must reach the log as JSON.
      await waitFor(() => hut.host.processes.some((p) => p.output().includes('"context":"opentelemetry"')), {
        timeoutMs: 30_000,
        what: 'a failed OTLP export to be logged',
      });
      for (const proc of hut.host.processes) {
        for (const line of linesOf(proc.output())) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(line);
          } catch {
            parsed = undefined;
          }
          expect({ proc: proc.name, line, json: typeof parsed === 'object' && parsed !== null }).toEqual({
            proc: proc.name,
            line,
            json: true,
          });
          expect(parsed).toMatchObject({
            time: expect.any(String),
            level: expect.any(String),
            service: expect.stringMatching(/^openwop-/),
          });
        }
        // node-postgres' deprecation of a query queued behind another on one client is gone, not hidden.
        expect(proc.output()).not.toContain('already executing a query');
      }
    });

    it('writes one access line per request with trace_id, method, route, status and duration', async () => {
      const gatewayOutput = hut.host.processes
        .filter((p) => p.name === 'gateway' || p.name === 'embedded')
        .map((p) => p.output())
        .join('\n');
      const access = linesOf(gatewayOutput)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.context === 'http');
      const created = access.filter((l) => l.method === 'POST' && l.route === '/v1/runs');
      expect(created.length).toBeGreaterThanOrEqual(2);
      for (const line of created) {
        expect(line).toMatchObject({
          level: 'info',
          status: 201,
          trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          duration_ms: expect.any(Number),
          path: '/v1/runs',
        });
      }
      expect(access.filter((l) => l.trace_id === TRACE_ID)).toEqual([
        expect.objectContaining({ method: 'GET', route: '/v1/runs', status: 200 }),
      ]);
      expect(
        access.some(
          (l) => l.route === '/v1/interrupts:bulk-resolve' && l.path === '/v1/interrupts:bulk-resolve',
        ),
      ).toBe(true);
      // The callback URL's token never reaches a line.
      expect(
        access.some((l) => l.route === '/v1/interrupts/:token' && l.path === '/v1/interrupts/[redacted]'),
      ).toBe(true);
    });
  },
);
