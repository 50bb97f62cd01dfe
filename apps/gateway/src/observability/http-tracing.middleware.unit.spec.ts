import { EventEmitter } from 'node:events';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@openwop/observability';
import type { NextFunction, Request, Response } from 'express';
import { HttpTracingMiddleware } from './http-tracing.middleware';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
startTelemetry('http-tracing-test', { spanProcessors: [processor] });

const TOKEN = 'eyJ2IjoxLCJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.' + 'Q'.repeat(43);

/** Runs one request through the middleware; `route` is what Express matched, if anything. */
async function traced(method: string, originalUrl: string, route: string | undefined, statusCode: number) {
  const req = { method, originalUrl, headers: {}, route: undefined as { path: string } | undefined } as unknown as Request & { route?: { path: string } };
  const res = Object.assign(new EventEmitter(), { statusCode, setHeader: () => undefined }) as unknown as Response;
  const next: NextFunction = () => {
    if (route !== undefined) req.route = { path: route };
  };
  new HttpTracingMiddleware().use(req, res, next);
  (res as unknown as EventEmitter).emit('finish');
  await processor.forceFlush();
  return exporter.getFinishedSpans().at(-1)!;
}

describe('HttpTracingMiddleware', () => {
  it('names the span by the route and records the path with the token of a callback URL cut out', async () => {
    const span = await traced('POST', `/v1/interrupts/${TOKEN}?x=1`, '/v1/interrupts/:token', 500);
    expect(span.name).toBe('POST /v1/interrupts/:token');
    expect(span.attributes).toMatchObject({
      'url.path': '/v1/interrupts/[redacted]',
      'http.route': '/v1/interrupts/:token',
      'http.response.status_code': 500,
    });
    expect(JSON.stringify(span.attributes)).not.toContain(TOKEN.split('.')[1]);
  });

  it('redacts the path of a request no route matched (an error before routing)', async () => {
    const span = await traced('POST', `/v1/interrupts/${TOKEN}`, undefined, 400);
    expect(span.name).toBe('POST');
    expect(span.attributes['url.path']).toBe('/v1/interrupts/[redacted]');
  });

  it('keeps ordinary paths as they are', async () => {
    expect((await traced('GET', '/v1/runs/r-1', '/v1/runs/:runId', 200)).attributes['url.path']).toBe('/v1/runs/r-1');
  });
});
