export { Attr, MetricName, interruptAttributes, interruptCountOf } from './attributes';
export {
  appLogger,
  isPrettyLogFormat,
  JsonLogger,
  RedactingConsoleLogger,
  logLine,
  oneLine,
  redactConsole,
  routeProcessOutput,
} from './json.logger';
export { HttpMetricName, recordHttpServerRequest, type HttpServerRequest } from './http.metrics';
export { createPrometheusHandler, prometheusUnit, withPrometheusUnit } from './prometheus.exposition';
export { isSecretName, REDACTED, redactSecrets, redactValue, registerSecret } from './secret-redaction';
export { pathOfRoute, routeLabel, routeLiterals, shapeOfUnmatchedPath } from './route-path';
export {
  countConversationTurn,
  countDeadLetter,
  countInterruptRequested,
  countTokenVerification,
  metricsEnabled,
  observeConsumerLag,
  observePendingInterrupts,
  recordInterruptDuration,
  seedCounters,
  type LagSample,
  type PendingInterruptSample,
} from './metrics';
export {
  metricsListenFromEnv,
  startMetricsServer,
  type MetricsServer,
  type MetricsServerOptions,
  type ReadinessReport,
} from './metrics.server';
export { observeEventLoopDelay, observeProcess, RuntimeMetricName } from './runtime.metrics';
export { countProjectionFailure, countProjectionHeld, ProjectionMetricName } from './projection.metrics';
export {
  currentTelemetry,
  startTelemetry,
  tracingEnabled,
  type Telemetry,
  type TelemetryOptions,
} from './telemetry';
export {
  activeTraceHeaders,
  annotateActiveSpan,
  annotateConversation,
  detachedFromTrace,
  extractTraceContext,
  inConsumeSpan,
  inSpan,
  withTraceHeaders,
  type ConsumeSpanInfo,
  type TraceHeaders,
} from './trace-context';
export { countWebhookDeliveriesPruned, WebhookMetricName } from './webhook.metrics';
