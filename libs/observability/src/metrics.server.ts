import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordHttpServerRequest } from './http.metrics';
import { currentTelemetry } from './telemetry';

/** The metrics listener of a service process, when `METRICS_PORT` asks for one. */
export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * What a readiness check found: `ok` when every dependency answered. `failing` names the ones that
 * did not; `checks` (if given) is the state of each, as the gateway's `/readyz` reports it.
 */
export interface ReadinessReport {
  readonly ok: boolean;
  readonly failing?: readonly string[];
  readonly checks?: Readonly<Record<string, 'up' | 'down'>>;
}

/** What the listener serves besides `GET /metrics`. */
export interface MetricsServerOptions {
  /**
   * The readiness check behind `GET /readyz` (none: `/readyz` is not served). It bounds its own
   * time; a rejection counts as not ready.
   */
  readonly ready?: () => Promise<ReadinessReport>;
}

/** The paths the listener serves (the `http.route` of its requests). */
const SERVED = new Set(['/metrics', '/healthz', '/readyz']);

/** `METRICS_PORT` (unset or empty: no listener) and `METRICS_HOST` (default `127.0.0.1`). */
export function metricsListenFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { port: number; host: string } | undefined {
  const raw = env.METRICS_PORT?.trim();
  if (!raw) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`METRICS_PORT must be a port number, got ${raw}`);
  return { port, host: env.METRICS_HOST?.trim() || '127.0.0.1' };
}

/**
 * A small HTTP listener for a service process (engine, interrupt, token, projector; the gateway and
 * the embedded host too): `GET /metrics` answers the Prometheus scrape, `GET /healthz` the liveness
 * probe (`200 {"status":"ok"}` while the event loop runs, no I/O), `GET /readyz` the readiness probe
 * (`200 {"status":"ready"}` when `options.ready` finds every dependency answering, else `503` in the
 * error envelope naming what failed); every other request `404`. Each request is counted in
 * `http.server.request.duration` (route: the path served, none for a 404). No auth, like every
 * Prometheus target (docs/adr/0010-observability.md): bind it to a private interface.
 */
export async function startMetricsServer(
  port: number,
  host: string,
  options: MetricsServerOptions = {},
): Promise<MetricsServer> {
  const { ready } = options;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const started = process.hrtime.bigint();
    response.once('finish', () =>
      recordHttpServerRequest({
        method: request.method ?? 'GET',
        route: response.statusCode !== 404 && SERVED.has(path ?? '') ? path : undefined,
        status: response.statusCode,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
      }),
    );
    if (request.method === 'GET') {
      if (path === '/healthz') return sendJson(response, 200, { status: 'ok' });
      if (path === '/readyz' && ready) {
        void answerReadiness(ready, response);
        return;
      }
      const telemetry = currentTelemetry();
      if (path === '/metrics' && telemetry) {
        telemetry.metricsHandler(request, response);
        return;
      }
    }
    sendJson(response, 404, {
      error: 'not_found',
      message: `No route ${request.method ?? ''} ${path}: only GET /metrics, /healthz${ready ? ' and /readyz' : ''} are served here.`,
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function answerReadiness(
  ready: () => Promise<ReadinessReport>,
  response: ServerResponse,
): Promise<void> {
  let report: ReadinessReport;
  try {
    report = await ready();
  } catch (e) {
    sendJson(response, 503, {
      error: 'unavailable',
      message: 'Not ready: the readiness check failed.',
      details: { failing: ['readiness-check'], reason: e instanceof Error ? e.message : String(e) },
    });
    return;
  }
  const checks = report.checks ? { checks: report.checks } : {};
  if (report.ok) {
    sendJson(response, 200, { status: 'ready', ...checks });
    return;
  }
  const failing = report.failing?.length ? [...report.failing] : ['unknown'];
  sendJson(response, 503, {
    error: 'unavailable',
    message: `Not ready: ${failing.join(', ')} did not answer.`,
    details: { failing, ...checks },
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.writableEnded) return;
  response.statusCode = status;
  response.setHeader('content-type', 'application/json');
  response.setHeader('cache-control', 'no-store');
  response.end(JSON.stringify(body));
}
