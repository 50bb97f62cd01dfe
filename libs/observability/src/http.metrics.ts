import { metrics, type Histogram } from '@opentelemetry/api';
import { currentTelemetry } from './telemetry';

/** OpenTelemetry's HTTP server metric (semantic conventions, stable): Prometheus `http_server_request_duration_seconds`. */
export const HttpMetricName = { serverRequestDuration: 'http.server.request.duration' } as const;

/** The bucket boundaries the semantic conventions advise for `http.server.request.duration`, seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Methods kept as they are; any other is `_OTHER`, so a client cannot mint series (semantic conventions). */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
]);

let histogram: Histogram | undefined;

function get(): Histogram | undefined {
  if (histogram) return histogram;
  if (!currentTelemetry()?.metrics) return undefined;
  histogram = metrics.getMeter('openwop').createHistogram(HttpMetricName.serverRequestDuration, {
    description: 'Duration of HTTP server requests, by method, matched route and status code.',
    unit: 's',
    advice: { explicitBucketBoundaries: BUCKETS },
  });
  return histogram;
}

export interface HttpServerRequest {
  readonly method: string;
  /** The matched route template (`/v1/runs/:runId`), never the path; absent when no route matched. */
  readonly route?: string | undefined;
  readonly status: number;
  readonly seconds: number;
  /** `http` or `https`. */
  readonly scheme?: string | undefined;
}

/** Records one answered request in `http.server.request.duration` (no-op with metrics off). */
export function recordHttpServerRequest(request: HttpServerRequest): void {
  const h = get();
  if (!h) return;
  const method = request.method.toUpperCase();
  h.record(Math.max(0, request.seconds), {
    'http.request.method': KNOWN_METHODS.has(method) ? method : '_OTHER',
    'http.response.status_code': request.status,
    'url.scheme': request.scheme ?? 'http',
    ...(request.route !== undefined ? { 'http.route': request.route } : {}),
  });
}
