import { randomBytes } from 'node:crypto';
import { Injectable, Logger, type NestMiddleware } from '@nestjs/common';
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { recordHttpServerRequest, routeLabel, tracingEnabled } from '@openwop/observability';
import type { NextFunction, Request, Response } from 'express';
import { loggablePath, matchedRouteOf } from './loggable-path';

const accessLog = new Logger('http');

/** The trace context of each request, from its arrival (see {@link httpTelemetry}). */
const requestContexts = new WeakMap<Request, Context>();

/** W3C `traceparent`: version, trace id, parent id, flags. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE_ID = '0'.repeat(32);

/**
 * The gateway's one HTTP seam for telemetry, mounted first (before the body intake, so a request
 * refused there is seen too). For every request:
 * - a trace context (`observability.md` §Trace context propagation): with tracing on, a SERVER span
 *   whose parent is the caller's `traceparent`; with it off, the caller's trace id (or a fresh one)
 *   under a span context that records nothing, so log lines still carry a `trace_id`. Either way
 *   the response's `traceparent` names it;
 * - on the answer: `http.server.request.duration` (method, matched route, status; never the path),
 *   the span's route, status and end, and one access log line (`method`, `route`, `path`, `status`,
 *   `duration_ms`, and the line's `trace_id`).
 * The route is the matched template (`POST /v1/runs/:runId/interrupts/:nodeId`), never ids. The
 * path (log line and the span's `url.path`) is never the raw URL: {@link loggablePath} builds it
 * from the match, the `:token` parameter `[redacted]`; before routing the span holds the path's
 * shape (literal route words only), replaced by the matched path at the end.
 */
export function httpTelemetry(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  const unrouted = loggablePath(req);
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracingEnabled()
    ? trace.getTracer('openwop').startSpan(
        req.method,
        // The path may carry a bearer credential (`/v1/interrupts/{token}`, in any spelling): the
        // trace backend gets only its shape until the router has matched it.
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': unrouted } },
        parent,
      )
    : untracedSpan(req.headers.traceparent);
  const active = trace.setSpan(parent, span);
  requestContexts.set(req, active);
  const { traceId, spanId, traceFlags } = span.spanContext();
  res.setHeader('traceparent', `00-${traceId}-${spanId}-${(traceFlags & 1) === 1 ? '01' : '00'}`);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const routePath = (req.route as { path?: unknown } | undefined)?.path;
    // The template as a person reads it: Express' escape of a literal colon (`\\:bulk-resolve`) dropped.
    const route = typeof routePath === 'string' ? routeLabel(routePath) : undefined;
    const path = matchedRouteOf(req) !== undefined ? loggablePath(req) : unrouted;
    span.setAttribute('url.path', path);
    // `finish` once the answer is written; `close` alone when the client went away first.
    const status = res.writableFinished ? res.statusCode : 499;
    if (route !== undefined) {
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    recordHttpServerRequest({ method: req.method, route, status, seconds, scheme: req.protocol });
    const durationMs = Math.round(seconds * 1e6) / 1e3;
    context.with(active, () =>
      accessLog.log(`${req.method} ${route ?? path} ${status} ${durationMs} ms`, {
        method: req.method,
        ...(route !== undefined ? { route } : {}),
        path,
        status,
        duration_ms: durationMs,
      }),
    );
  };
  res.once('finish', end);
  res.once('close', end);
  context.with(active, next);
}

/**
 * A span that records nothing (tracing is off) in the caller's trace when its `traceparent` is
 * valid, else in a fresh one; its span id is this request's.
 */
function untracedSpan(traceparent: string | string[] | undefined): Span {
  const caller = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  const callerTraceId =
    caller && caller[1] !== 'ff' && caller[2] !== INVALID_TRACE_ID ? caller[2] : undefined;
  return trace.wrapSpanContext({
    traceId: callerTraceId ?? randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.NONE,
  });
}

/**
 * Runs the rest of the request (guards, pipes, the handler) inside the trace context
 * {@link httpTelemetry} opened: reading the body runs on the socket's callbacks, outside it, so it
 * is entered again after the body intake.
 */
@Injectable()
export class HttpTraceContextMiddleware implements NestMiddleware {
  use(req: Request, _res: Response, next: NextFunction): void {
    const active = requestContexts.get(req);
    if (active) context.with(active, next);
    else next();
  }
}
