import type { ServerResponse } from 'node:http';
import { DataPointType, type MetricData, type MetricReader } from '@opentelemetry/sdk-metrics';
import { createPrometheusHandler, prometheusUnit, withPrometheusUnit } from './prometheus.exposition';

function metric(name: string, unit: string, dataPointType: DataPointType, isMonotonic = false): MetricData {
  return {
    descriptor: { name, unit, description: '', valueType: 1, type: 'x' },
    dataPointType,
    isMonotonic,
    aggregationTemporality: 1,
    dataPoints: [],
  } as unknown as MetricData;
}

describe('Prometheus unit suffixes (OpenTelemetry Prometheus compatibility)', () => {
  it('names units by their Prometheus word; annotations and counts take none; 1 on a gauge is a ratio', () => {
    expect(prometheusUnit('s', false)).toBe('seconds');
    expect(prometheusUnit('ms', false)).toBe('milliseconds');
    expect(prometheusUnit('By', true)).toBe('bytes');
    expect(prometheusUnit('By/s', true)).toBe('bytes_per_second');
    expect(prometheusUnit('{message}', true)).toBe('');
    expect(prometheusUnit('{run}', false)).toBe('');
    expect(prometheusUnit('', false)).toBe('');
    expect(prometheusUnit('1', false)).toBe('');
    expect(prometheusUnit('1', true)).toBe('ratio');
  });

  it('keeps the instrument name of the spec and suffixes the exposition name once', () => {
    const duration = withPrometheusUnit(metric('openwop.interrupt.duration', 's', DataPointType.HISTOGRAM));
    expect(duration.descriptor).toMatchObject({
      name: 'openwop.interrupt.duration_seconds',
      unit: 'seconds',
    });
    const already = withPrometheusUnit(
      metric('openwop.idempotency.partition_seconds', 's', DataPointType.GAUGE),
    );
    expect(already.descriptor.name).toBe('openwop.idempotency.partition_seconds');
    const cpu = withPrometheusUnit(metric('process.cpu.time', 's', DataPointType.SUM, true));
    expect(cpu.descriptor.name).toBe('process.cpu.time_seconds');
    const lag = metric('openwop.bus.consumer_lag', '{message}', DataPointType.GAUGE);
    expect(withPrometheusUnit(lag).descriptor).toMatchObject({ name: 'openwop.bus.consumer_lag', unit: '' });
  });
});

describe('a scrape that cannot be served', () => {
  it('answers 500 with the reason, so the scrape fails instead of reading as no series', async () => {
    const reader = {
      collect: () => Promise.reject(new Error('reader shut down')),
    } as unknown as MetricReader;
    const answered = new Promise<{ status: number; body: string }>((resolve) => {
      const response = {
        writableEnded: false,
        statusCode: 0,
        setHeader: () => undefined,
        end(body: string) {
          resolve({ status: this.statusCode, body });
        },
      };
      createPrometheusHandler(reader)(response as unknown as ServerResponse);
    });
    expect(await answered).toEqual({ status: 500, body: '# failed to export metrics: reader shut down\n' });
  });
});
