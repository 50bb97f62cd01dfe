import type { IncomingMessage, ServerResponse } from 'node:http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { startNodeSdk } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { createPrometheusHandler } from './prometheus.exposition';
import { observeEventLoopDelay, observeProcess } from './runtime.metrics';

/** What {@link startTelemetry} set up in this process. */
export interface Telemetry {
  /** Spans are recorded and exported: a tracer provider is registered. */
  readonly tracing: boolean;
  /** Metrics are collected and `metricsHandler` serves them. */
  readonly metrics: boolean;
  readonly serviceName: string;
  /** Answers a Prometheus scrape (text exposition format 0.0.4, unit suffixes per OpenTelemetry's Prometheus compatibility). */
  metricsHandler(request: IncomingMessage, response: ServerResponse): void;
  /** Flushes and stops the SDK (spans still queued are exported). */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Replaces the span processors chosen from `OTEL_*` (tests pass an in-memory exporter here). */
  readonly spanProcessors?: SpanProcessor[];
}

let current: Telemetry | undefined;
let tracingOn = false;

/**
 * Starts the OpenTelemetry Node SDK once per process, before Nest or kafkajs are loaded (each
 * app's `telemetry.ts` is the first import of its `main.ts`). Configured by the standard variables:
 * - `OTEL_SDK_DISABLED=true`: nothing starts, every telemetry call is a no-op, `/metrics` is empty;
 * - `OTEL_SERVICE_NAME` (default `defaultServiceName`), `OTEL_RESOURCE_ATTRIBUTES`;
 * - traces go to `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) over OTLP
 *   http/protobuf; with no endpoint and no `OTEL_TRACES_EXPORTER`, no tracer provider is registered,
 *   so spans cost nothing and no trace context is injected;
 * - `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`, `OTEL_PROPAGATORS` as the SDK reads them.
 * Metrics always go to an in-process Prometheus reader whose handler the app mounts on `GET /metrics`;
 * the runtime's own (event loop, CPU, memory) are reported from the start.
 *
 * @returns the process's telemetry; later calls return the first one.
 */
export function startTelemetry(defaultServiceName: string, options: TelemetryOptions = {}): Telemetry {
  if (current) return current;
  const env = options.env ?? process.env;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || defaultServiceName;
  if (isTrue(env.OTEL_SDK_DISABLED)) {
    current = disabledTelemetry(serviceName);
    return current;
  }
  const prometheus = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
  const spanProcessors = options.spanProcessors ?? (tracesConfigured(env) ? undefined : []);
  const sdk = startNodeSdk({
    resourceAttributes: { 'service.name': serviceName },
    metricReaders: [prometheus],
    logRecordProcessors: [],
    ...(spanProcessors ? { spanProcessors } : {}),
  });
  tracingOn = spanProcessors === undefined || spanProcessors.length > 0;
  observeEventLoopDelay();
  observeProcess();
  const scrape = createPrometheusHandler(prometheus);
  current = {
    tracing: tracingOn,
    metrics: true,
    serviceName,
    metricsHandler: (_request, response) => scrape(response),
    shutdown: () => sdk.shutdown(),
  };
  return current;
}

/** The telemetry started in this process, if any. */
export function currentTelemetry(): Telemetry | undefined {
  return current;
}

/** True when spans are recorded: the hot paths skip all span work otherwise. */
export function tracingEnabled(): boolean {
  return tracingOn;
}

/** An exporter is configured for traces by the environment. */
function tracesConfigured(env: NodeJS.ProcessEnv): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}

function disabledTelemetry(serviceName: string): Telemetry {
  return {
    tracing: false,
    metrics: false,
    serviceName,
    metricsHandler: (_request, response) => {
      response.statusCode = 200;
      response.setHeader('content-type', 'text/plain; version=0.0.4; charset=utf-8');
      response.end('# telemetry disabled (OTEL_SDK_DISABLED=true)\n');
    },
    shutdown: async () => undefined,
  };
}
