import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { MetricName } from './attributes';

// docker compose cannot run here: this pins what it would load. Every file parses, every mounted
// file exists, Prometheus scrapes every app on the METRICS_PORT compose gives it, and the dashboard
// queries every metric the apps expose.

const ROOT = resolve(__dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const yaml = <T>(path: string) => parse(read(path)) as T;
const APPS = ['gateway', 'engine', 'interrupt', 'token', 'projector'];

interface Compose {
  'x-app': { environment: Record<string, string | number> };
  services: Record<
    string,
    { image?: string; command?: string[]; volumes?: string[]; environment?: Record<string, unknown> }
  >;
}

/** The Prometheus family of each metric (the exposition adds the unit; counters end in `_total`). */
const PROMETHEUS_NAME: Record<string, string> = {
  [MetricName.interruptsRequested]: 'openwop_interrupt_requested_total',
  [MetricName.interruptDuration]: 'openwop_interrupt_duration_seconds',
  [MetricName.interruptsPending]: 'openwop_interrupt_pending',
  [MetricName.interruptOldestAge]: 'openwop_interrupt_oldest_age_seconds',
  [MetricName.conversationTurns]: 'openwop_conversation_turns_total',
  [MetricName.tokenVerifications]: 'openwop_token_verifications_total',
  [MetricName.consumerLag]: 'openwop_bus_consumer_lag',
  [MetricName.deadLetters]: 'openwop_bus_dead_letters_total',
};

describe('docker-compose.yml', () => {
  const compose = yaml<Compose>('docker-compose.yml');

  it('runs every app, the collector, Jaeger, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining([
        ...APPS,
        'kafka',
        'postgres',
        'otel-collector',
        'jaeger',
        'prometheus',
        'grafana',
      ]),
    );
  });

  it('gives every app an OTLP endpoint and a metrics port, and no shared service name', () => {
    const env = compose['x-app'].environment;
    expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
    expect(env.METRICS_PORT).toBe(9464);
    expect(env.METRICS_HOST).toBe('0.0.0.0');
    expect(env.OTEL_SERVICE_NAME).toBeUndefined();
    for (const app of APPS) {
      const own = compose.services[app]!.environment;
      if (own) expect(own.METRICS_PORT ?? env.METRICS_PORT).toBe(9464);
    }
  });

  it('mounts only files and folders that exist', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./'))
          expect({ name, source, exists: existsSync(join(ROOT, source)) }).toEqual({
            name,
            source,
            exists: true,
          });
      }
    }
  });
});

describe('infra configs', () => {
  it('the collector takes OTLP over HTTP and sends traces to Jaeger', () => {
    const collector = yaml<{
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
    }>('infra/otel/collector.yaml');
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(collector.service.pipelines.traces).toMatchObject({
      receivers: ['otlp'],
      exporters: ['otlp/jaeger'],
    });
  });

  it('Prometheus scrapes /metrics of every app on 9464', () => {
    const prometheus = yaml<{
      scrape_configs: { job_name: string; metrics_path?: string; static_configs: { targets: string[] }[] }[];
    }>('infra/prometheus/prometheus.yml');
    const job = prometheus.scrape_configs.find((j) => j.job_name === 'openwop')!;
    expect(job.metrics_path).toBe('/metrics');
    expect(job.static_configs.flatMap((c) => c.targets).sort()).toEqual(APPS.map((a) => `${a}:9464`).sort());
  });

  it('Grafana provisions the Prometheus data source and the dashboard folder compose mounts', () => {
    const datasources = yaml<{ datasources: { uid: string; url: string }[] }>(
      'infra/grafana/provisioning/datasources/prometheus.yaml',
    );
    expect(datasources.datasources).toContainEqual(
      expect.objectContaining({ uid: 'openwop-prometheus', url: 'http://prometheus:9090' }),
    );
    const providers = yaml<{ providers: { options: { path: string } }[] }>(
      'infra/grafana/provisioning/dashboards/openwop.yaml',
    );
    expect(providers.providers[0]!.options.path).toBe('/var/lib/grafana/dashboards');
  });

  it('the dashboard is valid JSON and charts every metric the apps expose', () => {
    const dashboard = JSON.parse(read('infra/grafana/dashboards/openwop.json')) as {
      uid: string;
      panels: { id: number; targets: { expr: string; datasource: { uid: string } }[] }[];
    };
    expect(dashboard.uid).toBe('openwop-hitl');
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const name of Object.values(MetricName))
      expect({
        name,
        charted: exprs.includes(PROMETHEUS_NAME[name] ?? `(no Prometheus name for ${name})`),
      }).toEqual({ name, charted: true });
    // A metric with a unit is named with it (`_seconds`); the bare name matches no series.
    expect(exprs).not.toMatch(/openwop_interrupt_(duration|oldest_age)(?!_seconds)/);
    for (const target of dashboard.panels.flatMap((p) => p.targets))
      expect(target.datasource.uid).toBe('openwop-prometheus');
  });
});
