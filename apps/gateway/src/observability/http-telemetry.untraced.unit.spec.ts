import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { JsonLogger, startTelemetry, tracingEnabled } from '@openwop/observability';
import type { NextFunction, Request, Response } from 'express';
import { httpTelemetry } from './http-telemetry.middleware';

// Tracing off (no OTLP endpoint): no span is recorded, yet every request has a trace id.
startTelemetry('http-telemetry-untraced-test', { env: {} });
const lines: Record<string, unknown>[] = [];
Logger.overrideLogger(new JsonLogger('test', (l) => lines.push(JSON.parse(l) as Record<string, unknown>)));

function served(headers: Record<string, string>, onHandler: () => void = () => undefined) {
  const req = { method: 'GET', originalUrl: '/v1/runs', headers, protocol: 'http' } as unknown as Request;
  const responseHeaders: Record<string, string> = {};
  const res = Object.assign(new EventEmitter(), {
    statusCode: 200,
    writableFinished: true,
    setHeader: (name: string, value: string) => void (responseHeaders[name] = value),
  }) as unknown as Response;
  lines.length = 0;
  httpTelemetry(req, res, (() => onHandler()) as NextFunction);
  (res as unknown as EventEmitter).emit('finish');
  return {
    traceparent: responseHeaders.traceparent!,
    access: lines.filter((l) => l.context === 'http'),
    handler: lines.filter((l) => l.context === 'handler'),
  };
}

describe('httpTelemetry with tracing off', () => {
  it('is off', () => {
    expect(tracingEnabled()).toBe(false);
  });

  it("keeps the caller's trace id in the access line, the handler's lines and the response, not sampled", () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { traceparent, access, handler } = served(
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      () => new Logger('handler').log('inside'),
    );
    expect(handler).toEqual([expect.objectContaining({ msg: 'inside', trace_id: traceId })]);
    expect(traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    expect(traceparent).not.toContain('00f067aa0ba902b7');
    expect(access).toEqual([expect.objectContaining({ trace_id: traceId, status: 200, method: 'GET' })]);
  });

  it('mints a trace id when the caller sent none or an invalid one', () => {
    const cases: Record<string, string>[] = [
      {},
      { traceparent: 'garbage' },
      { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` },
    ];
    for (const headers of cases) {
      const { traceparent, access } = served(headers);
      const traceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-00$/.exec(traceparent)?.[1];
      expect(traceId).toBeDefined();
      expect(traceId).not.toBe('0'.repeat(32));
      expect(access[0]!.trace_id).toBe(traceId);
    }
  });
});
