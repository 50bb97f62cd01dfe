import type { ServerResponse } from 'node:http';
import { diag } from '@opentelemetry/api';
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import {
  DataPointType,
  type MetricData,
  type MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';

/**
 * OpenTelemetry units (UCUM) and the word Prometheus names them by, per OpenTelemetry's "Prometheus
 * and OpenMetrics compatibility" (metric metadata → unit). Annotations (`{message}`) have no word.
 */
const UNIT_WORDS: Readonly<Record<string, string>> = {
  d: 'days',
  h: 'hours',
  min: 'minutes',
  s: 'seconds',
  ms: 'milliseconds',
  us: 'microseconds',
  ns: 'nanoseconds',
  By: 'bytes',
  KiBy: 'kibibytes',
  MiBy: 'mebibytes',
  GiBy: 'gibibytes',
  KBy: 'kilobytes',
  MBy: 'megabytes',
  GBy: 'gigabytes',
  '%': 'percent',
};

/**
 * The Prometheus unit word of an OpenTelemetry unit, or `''` when the name takes no unit suffix:
 * no unit, an annotation like `{message}`, or `1` on anything but a gauge (a count). `1` on a gauge
 * is a `ratio`; `X/Y` is `<x>_per_<y>`.
 */
export function prometheusUnit(unit: string, gauge: boolean): string {
  const bare = unit.replace(/\{[^}]*\}/g, '').trim();
  if (bare === '') return '';
  if (bare === '1') return gauge ? 'ratio' : '';
  const slash = bare.indexOf('/');
  if (slash > 0) {
    const [over, under] = [bare.slice(0, slash), bare.slice(slash + 1)];
    const per =
      UNIT_WORDS[under] ?? { s: 'second', m: 'minute', h: 'hour', d: 'day' }[under] ?? sanitize(under);
    return `${over === '1' ? '' : `${UNIT_WORDS[over] ?? sanitize(over)}_`}per_${per.replace(/s$/, '')}`;
  }
  return UNIT_WORDS[bare] ?? sanitize(bare);
}

function sanitize(text: string): string {
  return text.replace(/[^a-zA-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

/**
 * The metric as Prometheus names it: the OpenTelemetry name (kept as the instrument's, e.g.
 * `openwop.interrupt.duration` with unit `s`, as `observability.md` names it) with the unit word as
 * a suffix (`openwop_interrupt_duration_seconds`), unless the name already ends with it; the
 * serializer then adds `_total` to counters (`process_cpu_time_seconds_total`). The `# UNIT` line
 * carries the same word.
 */
export function withPrometheusUnit(metric: MetricData): MetricData {
  const { name, unit } = metric.descriptor;
  const gauge =
    metric.dataPointType === DataPointType.GAUGE ||
    (metric.dataPointType === DataPointType.SUM && !metric.isMonotonic);
  const word = prometheusUnit(unit, gauge);
  if (word === '')
    return unit === '' ? metric : { ...metric, descriptor: { ...metric.descriptor, unit: '' } };
  const flat = sanitize(name).toLowerCase();
  const suffixed = flat === word || flat.endsWith(`_${word}`) ? name : `${name}_${word}`;
  return { ...metric, descriptor: { ...metric.descriptor, name: suffixed, unit: word } };
}

/** `resourceMetrics` with every metric named as {@link withPrometheusUnit} says. */
export function withPrometheusUnits(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map(withPrometheusUnit),
    })),
  };
}

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Answers a Prometheus scrape from `reader` (the SDK's Prometheus exporter, used as a reader only):
 * collects, waits for the resource's asynchronous attributes (reading them earlier logs an error on
 * each scrape), and writes the text exposition with unit suffixes. The exporter's own handler does
 * not add them (exporter-prometheus 0.x), and a view renaming each instrument would rename it for
 * every reader, so the OpenTelemetry names stay those of the spec and only this exposition differs.
 */
export function createPrometheusHandler(reader: MetricReader): (response: ServerResponse) => void {
  const serializer = new PrometheusSerializer(undefined, false, undefined, false, true);
  return (response) => {
    void (async () => {
      let body: string;
      // A scrape that cannot be served fails (500, so Prometheus' `up` says so) and is logged,
      // instead of a 200 whose empty body reads as "no series".
      let status = 200;
      try {
        const { resourceMetrics, errors } = await reader.collect();
        if (errors.length > 0) diag.error('metrics collection errors', ...errors);
        await resourceMetrics.resource.waitForAsyncAttributes?.();
        body = serializer.serialize(withPrometheusUnits(resourceMetrics));
      } catch (error) {
        diag.error('metrics export failed', error);
        status = 500;
        body = `# failed to export metrics: ${error instanceof Error ? error.message : String(error)}\n`;
      }
      if (response.writableEnded) return;
      response.statusCode = status;
      response.setHeader('content-type', CONTENT_TYPE);
      response.end(body);
    })();
  };
}
