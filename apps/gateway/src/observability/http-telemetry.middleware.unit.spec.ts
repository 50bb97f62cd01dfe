import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { JsonLogger, startTelemetry } from '@openwop/observability';
import type { NextFunction, Request, Response } from 'express';
import { httpTelemetry } from './http-telemetry.middleware';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const telemetry = startTelemetry('http-telemetry-test', { spanProcessors: [processor] });

const lines: Record<string, unknown>[] = [];
const json = new JsonLogger(
  'test',
  (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
  (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
);
Logger.overrideLogger(json);

const TOKEN = 'eyJ2IjoxLCJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.' + 'Q'.repeat(43);

/** The routes of the app the requests reach (its router's route layers). */
const app = {
  router: {
    stack: ['/v1/runs', '/v1/runs/:runId', '/v1/interrupts/:token', '/{*path}'].map((path) => ({
      route: { path },
    })),
  },
};

/**
 * Runs one request through the middleware; `route` is what Express matched, if anything, with
 * `params` as the router decoded them.
 */
async function served(
  method: string,
  originalUrl: string,
  route: string | undefined,
  statusCode: number,
  headers: Record<string, string> = {},
  params: Record<string, string> = {},
) {
  const req = {
    method,
    originalUrl,
    headers,
    protocol: 'http',
    app,
    route: undefined as { path: string } | undefined,
  } as unknown as Request & { route?: { path: string } };
  const responseHeaders: Record<string, string> = {};
  const res = Object.assign(new EventEmitter(), {
    statusCode,
    writableFinished: true,
    setHeader: (name: string, value: string) => void (responseHeaders[name] = value),
  }) as unknown as Response;
  const next: NextFunction = () => {
    if (route !== undefined) Object.assign(req, { route: { path: route }, params });
  };
  lines.length = 0;
  httpTelemetry(req, res, next);
  (res as unknown as EventEmitter).emit('finish');
  (res as unknown as EventEmitter).emit('close');
  await processor.forceFlush();
  return {
    span: exporter.getFinishedSpans().at(-1)!,
    headers: responseHeaders,
    access: lines.filter((l) => l.context === 'http'),
  };
}

function scrape(): Promise<string> {
  return new Promise((resolve) => {
    const res = {
      statusCode: 0,
      writableEnded: false,
      setHeader: () => undefined,
      end: (body: string) => resolve(body),
    };
    telemetry.metricsHandler({} as never, res as never);
  });
}

describe('httpTelemetry', () => {
  it('names the span by the route and records the path with the token of a callback URL cut out', async () => {
    const { span } = await served(
      'POST',
      `/v1/interrupts/${TOKEN}?x=1`,
      '/v1/interrupts/:token',
      500,
      {},
      { token: TOKEN },
    );
    expect(span.name).toBe('POST /v1/interrupts/:token');
    expect(span.attributes).toMatchObject({
      'url.path': '/v1/interrupts/[redacted]',
      'http.route': '/v1/interrupts/:token',
      'http.response.status_code': 500,
    });
    expect(JSON.stringify(span.attributes)).not.toContain(TOKEN.split('.')[1]);
  });

  it('records only the literal route words of a path no route matched (an error before routing, the not-found route)', async () => {
    const { span, access } = await served('POST', `/v1/interrupts/${TOKEN}`, undefined, 400);
    expect(span.name).toBe('POST');
    expect(span.attributes['url.path']).toBe('/v1/interrupts/*');
    expect(access[0]!.path).toBe('/v1/interrupts/*');
    const odd = `/V1/INTERRUPTS/%65${TOKEN.slice(1)}`;
    for (const route of [undefined, '/{*path}']) {
      const unmatched = await served('GET', `${odd}?token=x`, route, 404, {}, { path: odd });
      expect(unmatched.span.attributes['url.path']).toBe('/*/*/*');
      expect(unmatched.access[0]!.path).toBe('/*/*/*');
      expect(JSON.stringify([unmatched.access, unmatched.span.attributes])).not.toContain(TOKEN.slice(8, 40));
    }
  });

  it('builds the path from the match, not the raw URL: an odd spelling that reaches the token route logs no token', async () => {
    const odd = `/v1/interrupts/%65${TOKEN.slice(1).replace('.', '%2E')}`;
    const { span, access } = await served('GET', odd, '/v1/interrupts/:token', 200, {}, { token: TOKEN });
    expect(span.attributes['url.path']).toBe('/v1/interrupts/[redacted]');
    expect(access[0]).toMatchObject({ route: '/v1/interrupts/:token', path: '/v1/interrupts/[redacted]' });
    expect(JSON.stringify([access, span.attributes])).not.toContain(TOKEN.split('.')[1]);
  });

  it('keeps ordinary parameters, URL-encoded', async () => {
    expect(
      (await served('GET', '/v1/runs/r-1', '/v1/runs/:runId', 200, {}, { runId: 'r-1' })).span.attributes[
        'url.path'
      ],
    ).toBe('/v1/runs/r-1');
    expect(
      (await served('GET', '/v1/runs/a%2Fb', '/v1/runs/:runId', 200, {}, { runId: 'a/b' })).access[0]!.path,
    ).toBe('/v1/runs/a%2Fb');
  });

  it("records a route with a literal colon as written, without Express' escape", async () => {
    const { span, access } = await served(
      'POST',
      '/v1/interrupts:bulk-resolve',
      '/v1/interrupts\\:bulk-resolve',
      200,
      {},
      {},
    );
    expect(span.attributes['http.route']).toBe('/v1/interrupts:bulk-resolve');
    expect(access[0]).toMatchObject({
      route: '/v1/interrupts:bulk-resolve',
      msg: 'POST /v1/interrupts:bulk-resolve 200 ' + String(access[0]!.duration_ms) + ' ms',
    });
  });

  it('writes one access line per request with the trace id the response names, the route and no token', async () => {
    const { span, headers, access } = await served(
      'POST',
      `/v1/interrupts/${TOKEN}`,
      '/v1/interrupts/:token',
      200,
      {},
      { token: TOKEN },
    );
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 'info',
      method: 'POST',
      route: '/v1/interrupts/:token',
      path: '/v1/interrupts/[redacted]',
      status: 200,
      trace_id: span.spanContext().traceId,
    });
    expect(typeof access[0]!.duration_ms).toBe('number');
    expect(headers.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    expect(JSON.stringify(access)).not.toContain(TOKEN.split('.')[1]);
  });

  it('continues the caller trace', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { span, access } = await served('GET', '/v1/runs', '/v1/runs', 200, {
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    });
    expect(span.spanContext().traceId).toBe(traceId);
    expect(access[0]!.trace_id).toBe(traceId);
  });

  it('records http.server.request.duration by method, route and status, in seconds', async () => {
    await served('GET', '/v1/runs/r-2', '/v1/runs/:runId', 404, {}, { runId: 'r-2' });
    const text = await scrape();
    expect(text).toContain('# TYPE http_server_request_duration_seconds histogram');
    expect(text).toMatch(
      /^http_server_request_duration_seconds_count\{http_request_method="GET",http_response_status_code="404",url_scheme="http",http_route="\/v1\/runs\/:runId"\} 1$/m,
    );
    expect(text).not.toContain('r-2');
  });
});
