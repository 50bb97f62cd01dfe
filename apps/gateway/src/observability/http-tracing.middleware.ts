import { Injectable, type NestMiddleware } from '@nestjs/common';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { redactSecrets, tracingEnabled } from '@openwop/observability';
import type { NextFunction, Request, Response } from 'express';

/**
 * The SERVER span of every HTTP request (`observability.md` §Trace context): its parent is the
 * caller's `traceparent` when it sent one, the response carries this span's `traceparent`, and the
 * handler runs inside it, so the commands it sends over the bus continue the same trace. Registered
 * after Nest's body parsers, so the context is not lost across the body read. The span is named by
 * the matched route (`POST /v1/runs/:runId/interrupts/:nodeId`), never by ids, and its `url.path`
 * is redacted (no token of a callback URL reaches the trace backend). No-op with tracing off.
 */
@Injectable()
export class HttpTracingMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    if (!tracingEnabled()) return next();
    const parent = propagation.extract(context.active(), req.headers);
    const span = trace.getTracer('openwop').startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        // The path may carry a bearer credential (`/v1/interrupts/{token}`): the trace backend gets it redacted.
        attributes: { 'http.request.method': req.method, 'url.path': redactSecrets(req.originalUrl.split('?')[0] ?? '/') },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    const headers: Record<string, string> = {};
    propagation.inject(active, headers);
    if (headers.traceparent) res.setHeader('traceparent', headers.traceparent);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = (req.route as { path?: unknown } | undefined)?.path;
      if (typeof route === 'string') {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(active, next);
  }
}
