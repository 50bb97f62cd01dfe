import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { metrics } from '@opentelemetry/api';

/** Sampling resolution of the event-loop delay histogram (Node's default is 10 ms). */
const EVENT_LOOP_RESOLUTION_MS = 10;

/** The Node.js runtime metrics of OpenTelemetry's semantic conventions that this host reports. */
export const RuntimeMetricName = {
  eventLoopDelayP50: 'nodejs.eventloop.delay.p50',
  eventLoopDelayP99: 'nodejs.eventloop.delay.p99',
  eventLoopDelayMax: 'nodejs.eventloop.delay.max',
} as const;

let histogram: IntervalHistogram | undefined;

/**
 * Reports how late the event loop ran (`perf_hooks.monitorEventLoopDelay`), as gauges in seconds:
 * p50, p99 and max over the window since the previous scrape (the histogram resets after each one),
 * so a burst of synchronous work in any tenant's request shows on the next scrape
 * (`nodejs_eventloop_delay_p99` in Prometheus, unit `s`). Idempotent per process.
 */
export function observeEventLoopDelay(): void {
  if (histogram) return;
  const h = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  h.enable();
  histogram = h;
  const meter = metrics.getMeter('openwop');
  const gauge = (name: string, description: string) => meter.createObservableGauge(name, { description, unit: 's' });
  const p50 = gauge(RuntimeMetricName.eventLoopDelayP50, 'Event loop delay, median since the previous scrape.');
  const p99 = gauge(RuntimeMetricName.eventLoopDelayP99, 'Event loop delay, 99th percentile since the previous scrape.');
  const max = gauge(RuntimeMetricName.eventLoopDelayMax, 'Event loop delay, maximum since the previous scrape.');
  meter.addBatchObservableCallback(
    (result) => {
      const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
      result.observe(p50, seconds(h.percentile(50)));
      result.observe(p99, seconds(h.percentile(99)));
      result.observe(max, seconds(h.max));
      h.reset();
    },
    [p50, p99, max],
  );
}
