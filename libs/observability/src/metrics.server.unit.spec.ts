import type { ServerResponse } from 'node:http';
import { startMetricsServer, type MetricsServer, type ReadinessReport } from './metrics.server';

// The process-wide telemetry is replaced by a stand-in scrape handler: these cases are about routing.
jest.mock('./telemetry', () => ({
  currentTelemetry: () => ({
    metricsHandler: (_req: unknown, res: ServerResponse) => {
      res.setHeader('content-type', 'text/plain');
      res.end('# TYPE stand_in counter\n');
    },
  }),
}));

async function get(server: MetricsServer, path: string, method = 'GET') {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { method });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    text,
    json: () => JSON.parse(text) as Record<string, unknown>,
  };
}

describe('the metrics listener', () => {
  const servers: MetricsServer[] = [];
  const start = async (ready?: () => Promise<ReadinessReport>) => {
    const server = await startMetricsServer(0, '127.0.0.1', ready ? { ready } : {});
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('answers GET /healthz 200 {"status":"ok"} without asking the readiness check', async () => {
    const ready = jest.fn(async () => ({ ok: false, failing: ['bus'] }));
    const server = await start(ready);
    const res = await get(server, '/healthz');
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.json()).toEqual({ status: 'ok' });
    expect(ready).not.toHaveBeenCalled();
  });

  it('answers GET /readyz 200 with the checks when every dependency answers', async () => {
    const server = await start(async () => ({ ok: true, checks: { bus: 'up', database: 'up' } }));
    const res = await get(server, '/readyz?verbose=1');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { bus: 'up', database: 'up' } });
  });

  it('answers GET /readyz 503 in the error envelope naming the dependency that failed', async () => {
    const server = await start(async () => ({
      ok: false,
      failing: ['database'],
      checks: { bus: 'up', database: 'down' },
    }));
    const res = await get(server, '/readyz');
    expect(res.status).toBe(503);
    expect(res.contentType).toBe('application/json');
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['details', 'error', 'message']);
    expect(body).toEqual({
      error: 'unavailable',
      message: expect.stringContaining('database'),
      details: { failing: ['database'], checks: { bus: 'up', database: 'down' } },
    });
  });

  it('asks the readiness check on every request (a dependency that comes back makes it ready)', async () => {
    let busUp = false;
    const server = await start(async () => (busUp ? { ok: true } : { ok: false, failing: ['bus'] }));
    const down = await get(server, '/readyz');
    expect(down.status).toBe(503);
    expect(down.json()).toMatchObject({ error: 'unavailable', details: { failing: ['bus'] } });
    busUp = true;
    const up = await get(server, '/readyz');
    expect(up.status).toBe(200);
    expect(up.json()).toEqual({ status: 'ready' });
  });

  it('answers 503 when the readiness check itself rejects', async () => {
    const server = await start(async () => {
      throw new Error('pool closed');
    });
    const res = await get(server, '/readyz');
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({
      error: 'unavailable',
      message: expect.any(String),
      details: { failing: ['readiness-check'], reason: 'pool closed' },
    });
  });

  it('still serves GET /metrics', async () => {
    const server = await start(async () => ({ ok: true }));
    const res = await get(server, '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('# TYPE stand_in counter');
  });

  it('answers an unknown path, another method, or /readyz without a check 404 in the error envelope', async () => {
    const withCheck = await start(async () => ({ ok: true }));
    for (const [path, method] of [
      ['/', 'GET'],
      ['/health', 'GET'],
      ['/healthz', 'POST'],
      ['/readyz', 'DELETE'],
    ] as const) {
      const res = await get(withCheck, path, method);
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 404 });
      expect(res.json()).toEqual({ error: 'not_found', message: expect.stringContaining('/healthz') });
    }
    const withoutCheck = await start();
    const res = await get(withoutCheck, '/readyz');
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ error: 'not_found' });
    expect((await get(withoutCheck, '/healthz')).status).toBe(200);
  });
});
