import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { metrics } from '@opentelemetry/api';

/** Sampling resolution of the event-loop delay histogram (Node's default is 10 ms). */
const EVENT_LOOP_RESOLUTION_MS = 10;

/**
 * The process and Node.js runtime metrics of OpenTelemetry's semantic conventions that this host
 * reports (Prometheus: `nodejs_eventloop_delay_p99_seconds`, `process_cpu_time_seconds_total`,
 * `process_memory_usage_bytes`, `v8js_memory_heap_used_bytes`, `process_uptime_seconds`).
 */
export const RuntimeMetricName = {
  eventLoopDelayP50: 'nodejs.eventloop.delay.p50',
  eventLoopDelayP99: 'nodejs.eventloop.delay.p99',
  eventLoopDelayMax: 'nodejs.eventloop.delay.max',
  /** CPU seconds used, by `cpu.mode` (`user`, `system`). */
  processCpuTime: 'process.cpu.time',
  /** Resident set size, bytes. */
  processMemoryUsage: 'process.memory.usage',
  /** V8 heap in use, bytes, by `v8js.heap.space.name`. */
  v8HeapUsed: 'v8js.memory.heap.used',
  /** Seconds since the process started. */
  processUptime: 'process.uptime',
} as const;

let histogram: IntervalHistogram | undefined;

/**
 * Reports how late the event loop ran (`perf_hooks.monitorEventLoopDelay`), as gauges in seconds:
 * p50, p99 and max over the window since the previous scrape (the histogram resets after each one),
 * so a burst of synchronous work in any tenant's request shows on the next scrape
 * (`nodejs_eventloop_delay_p99_seconds` in Prometheus). Idempotent per process.
 */
export function observeEventLoopDelay(): void {
  if (histogram) return;
  const h = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  h.enable();
  histogram = h;
  const meter = metrics.getMeter('openwop');
  const gauge = (name: string, description: string) =>
    meter.createObservableGauge(name, { description, unit: 's' });
  const p50 = gauge(
    RuntimeMetricName.eventLoopDelayP50,
    'Event loop delay, median since the previous scrape.',
  );
  const p99 = gauge(
    RuntimeMetricName.eventLoopDelayP99,
    'Event loop delay, 99th percentile since the previous scrape.',
  );
  const max = gauge(
    RuntimeMetricName.eventLoopDelayMax,
    'Event loop delay, maximum since the previous scrape.',
  );
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

let processObserved = false;

/**
 * Reports the process's CPU time, resident memory, V8 heap in use and uptime at each scrape (read
 * then, nothing runs between scrapes). Idempotent per process.
 */
export function observeProcess(): void {
  if (processObserved) return;
  processObserved = true;
  const meter = metrics.getMeter('openwop');
  const cpu = meter.createObservableCounter(RuntimeMetricName.processCpuTime, {
    description: 'CPU time used by the process, by mode.',
    unit: 's',
  });
  const memory = meter.createObservableUpDownCounter(RuntimeMetricName.processMemoryUsage, {
    description: 'Resident set size of the process.',
    unit: 'By',
  });
  const heap = meter.createObservableUpDownCounter(RuntimeMetricName.v8HeapUsed, {
    description: 'V8 heap in use, by heap space.',
    unit: 'By',
  });
  const uptime = meter.createObservableGauge(RuntimeMetricName.processUptime, {
    description: 'Time since the process started.',
    unit: 's',
  });
  meter.addBatchObservableCallback(
    (result) => {
      const usage = process.cpuUsage();
      result.observe(cpu, usage.user / 1e6, { 'cpu.mode': 'user' });
      result.observe(cpu, usage.system / 1e6, { 'cpu.mode': 'system' });
      result.observe(memory, process.memoryUsage.rss());
      for (const space of getHeapSpaceStatistics())
        result.observe(heap, space.space_used_size, { 'v8js.heap.space.name': space.space_name });
      result.observe(uptime, process.uptime());
    },
    [cpu, memory, heap, uptime],
  );
}
