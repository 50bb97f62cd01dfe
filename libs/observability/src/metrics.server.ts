import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { currentTelemetry } from './telemetry';

/** The metrics listener of a service process, when `METRICS_PORT` asks for one. */
export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** `METRICS_PORT` (unset or empty: no listener) and `METRICS_HOST` (default `127.0.0.1`). */
export function metricsListenFromEnv(env: NodeJS.ProcessEnv = process.env): { port: number; host: string } | undefined {
  const raw = env.METRICS_PORT?.trim();
  if (!raw) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`METRICS_PORT must be a port number, got ${raw}`);
  return { port, host: env.METRICS_HOST?.trim() || '127.0.0.1' };
}

/**
 * A small HTTP listener for a headless service (engine, interrupt, token, projector): `GET /metrics`
 * answers the Prometheus scrape, every other request `404`. No auth, like every Prometheus target
 * (docs/adr/0010-observability.md): bind it to a private interface.
 */
export async function startMetricsServer(port: number, host: string): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const telemetry = currentTelemetry();
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/metrics' && telemetry) {
      telemetry.metricsHandler(request, response);
      return;
    }
    response.statusCode = 404;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ error: 'not_found', message: 'Only GET /metrics is served here.' }));
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
