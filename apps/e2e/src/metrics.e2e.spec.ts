import {
  createTestDatabase,
  startDistributedStack,
  startEmbeddedHost,
  TEST_KEYS,
  waitFor,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';

// `GET /metrics` of every app, as Prometheus scrapes it, and the `/healthz` and `/readyz` probes on
// the same listener: the built apps as separate processes.

const AUTH = { authorization: `Bearer ${TEST_KEYS.t1}`, 'content-type': 'application/json' };

/** The metric families each app exposes, by Prometheus name. */
const EXPECTED: Record<string, readonly string[]> = {
  engine: ['openwop_bus_consumer_lag', 'openwop_bus_dead_letters_total'],
  interrupt: [
    'openwop_interrupt_requested_total',
    'openwop_interrupt_duration',
    'openwop_conversation_turns_total',
    'openwop_bus_consumer_lag',
    'openwop_bus_dead_letters_total',
  ],
  token: ['openwop_token_verifications_total', 'openwop_bus_consumer_lag', 'openwop_bus_dead_letters_total'],
  projector: [
    'openwop_interrupt_pending',
    'openwop_interrupt_oldest_age',
    'openwop_bus_consumer_lag',
    'openwop_bus_dead_letters_total',
  ],
  gateway: ['target_info'],
};
const ALL = [...new Set(Object.values(EXPECTED).flat())];

/** Metric family names (`# TYPE <name> <type>`) of a scrape. */
async function scrape(url: string): Promise<{ status: number; contentType: string | null; families: Set<string>; text: string }> {
  const res = await fetch(url);
  const text = await res.text();
  const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  return { status: res.status, contentType: res.headers.get('content-type'), families, text };
}

/** Starts an approval run, waits for it to wait, and resolves it through a signed token (so every app acts). */
async function approveOnce(gateway: string): Promise<string> {
  const created = await fetch(`${gateway}/v1/runs`, { method: 'POST', headers: AUTH, body: JSON.stringify({ workflowId: 'conformance-approval' }) });
  const { runId } = (await created.json()) as { runId: string };
  const callbackUrl = await waitFor(
    async () => {
      const run = (await (await fetch(`${gateway}/v1/runs/${runId}`, { headers: AUTH })).json()) as { status: string; interrupt?: { callbackUrl?: string } };
      return run.status === 'waiting-approval' && run.interrupt?.callbackUrl;
    },
    { timeoutMs: 30_000, what: 'the run to wait for approval with a callback URL' },
  );
  const resolved = await fetch(callbackUrl.replace(/^https?:\/\/[^/]+/, gateway), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'accept' }) });
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
    expect([...metricsUrl.keys()].sort()).toEqual(['engine', 'gateway', 'interrupt', 'projector', 'token']);
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
    expect(interrupt.text).toMatch(/openwop_interrupt_duration_count\{openwop_interrupt_kind="approval",openwop_run_status="resolved"\} 1/);
    const token = await scrape(metricsUrl.get('token')!);
    expect(token.text).toMatch(/openwop_token_verifications_total\{openwop_token_outcome="ok"\} [1-9]/);
  });

  it('serves /healthz and /readyz on the metrics listener of every process, unauthenticated', async () => {
    expect([...metricsUrl.keys()].sort()).toEqual(['engine', 'gateway', 'interrupt', 'projector', 'token']);
    for (const [app, url] of metricsUrl) {
      const base = url.replace(/\/metrics$/, '');
      const live = await fetch(`${base}/healthz`);
      expect({ app, status: live.status, body: await live.json() }).toEqual({ app, status: 200, body: { status: 'ok' } });
      const ready = await fetch(`${base}/readyz`);
      expect({ app, status: ready.status, body: await ready.json() }).toEqual({
        app,
        status: 200,
        body: { status: 'ready', checks: { bus: 'up', database: 'up' } },
      });
      const unknown = await fetch(`${base}/nope`);
      expect({ app, status: unknown.status, body: await unknown.json() }).toMatchObject({ app, status: 404, body: { error: 'not_found' } });
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
    const post = (path: string, body: unknown) => fetch(`${gateway}${path}`, { method: 'POST', headers: AUTH, body: JSON.stringify(body) });
    const definition = {
      id: 'metrics-conversation',
      name: 'metrics-conversation',
      version: '1.0.0',
      nodes: [{ id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'Plan it' } }],
      edges: [],
    };
    expect((await post('/v1/workflows', definition)).status).toBeLessThan(300);
    const { runId } = (await (await post('/v1/runs', { workflowId: 'metrics-conversation' })).json()) as { runId: string };
    await waitFor(
      async () => ((await (await fetch(`${gateway}/v1/runs/${runId}`, { headers: AUTH })).json()) as { status: string }).status === 'waiting-approval',
      { timeoutMs: 30_000, what: 'the conversation to wait for a turn' },
    );
    const turn = (messageId: string, content: string) => ({
      nodeId: 'talk',
      operation: 'exchange',
      turn: { messageId, from: 'user', role: 'user', content },
    });
    for (const [id, text] of [['m1', 'Where?'], ['m1', 'Where?'], ['m2', 'When?']] as const) {
      expect((await post(`/v1/runs/${runId}:resolveInterrupt`, turn(`${runId}-${id}`, text))).status).toBe(200);
    }
    const scraped = await scrape(`${gateway}/metrics`);
    expect(scraped.text).toMatch(/openwop_conversation_turns_total\{openwop_interrupt_kind="conversation\.exchange"\} 2\n/);
  });
});
