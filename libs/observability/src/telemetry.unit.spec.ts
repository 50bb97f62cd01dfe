import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as TelemetryModule from './telemetry';
import type * as TraceContextModule from './trace-context';

// startTelemetry is once per process: each case loads a fresh copy of the module.
async function fresh() {
  let loaded: { telemetry: typeof TelemetryModule; context: typeof TraceContextModule } | undefined;
  jest.isolateModules(() => {
    loaded = {
      telemetry: jest.requireActual<typeof TelemetryModule>('./telemetry'),
      context: jest.requireActual<typeof TraceContextModule>('./trace-context'),
    };
  });
  return loaded!;
}

function scrape(telemetry: TelemetryModule.Telemetry): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    const res = {
      statusCode: 0,
      setHeader: () => undefined,
      end: (chunk?: string) => resolve(body + (chunk ?? '')),
      write: (chunk: string) => ((body += chunk), true),
    } as unknown as ServerResponse;
    telemetry.metricsHandler({} as IncomingMessage, res);
  });
}

describe('startTelemetry', () => {
  it('OTEL_SDK_DISABLED=true starts nothing: no tracing, no metrics, no headers', async () => {
    const { telemetry, context } = await fresh();
    const t = telemetry.startTelemetry('svc', {
      env: { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' },
    });
    expect({ tracing: t.tracing, metrics: t.metrics, name: t.serviceName }).toEqual({
      tracing: false,
      metrics: false,
      name: 'svc',
    });
    expect(telemetry.tracingEnabled()).toBe(false);
    expect(context.withTraceHeaders({ a: 'b' })).toEqual({ a: 'b' });
    expect(await scrape(t)).toContain('telemetry disabled');
  });

  it('without an OTLP endpoint registers no tracer, keeps metrics, and names the service', async () => {
    const { telemetry, context } = await fresh();
    const t = telemetry.startTelemetry('openwop-engine', { env: {} });
    expect({ tracing: t.tracing, metrics: t.metrics }).toEqual({ tracing: false, metrics: true });
    expect(context.activeTraceHeaders()).toEqual({});
    expect(await scrape(t)).toContain('service_name="openwop-engine"');
    expect(telemetry.startTelemetry('other')).toBe(t);
    await t.shutdown();
  });

  it('OTEL_SERVICE_NAME overrides the default name; an endpoint turns tracing on', async () => {
    const { telemetry } = await fresh();
    const t = telemetry.startTelemetry('openwop-engine', {
      env: { OTEL_SERVICE_NAME: 'engine-eu', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' },
    });
    expect({ tracing: t.tracing, name: t.serviceName }).toEqual({ tracing: true, name: 'engine-eu' });
    await t.shutdown();
  });
});
