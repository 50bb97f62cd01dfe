import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

// infra/k8s is a starting point for a platform team; no cluster runs here, so this pins what
// `kubectl apply -k` would get: every file parses, every app has a Deployment with probes and
// resource requests, a PodDisruptionBudget, and the gateway a Service and an HPA; every secret and
// ConfigMap a Deployment names exists.

const DIR = resolve(__dirname, '../../../infra/k8s');
const APPS = ['gateway', 'engine', 'interrupt', 'token', 'projector'];

interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
  timeoutSeconds?: number;
}
interface Container {
  name: string;
  command: string[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } };
  envFrom?: { configMapRef?: { name: string } }[];
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
}
interface Doc {
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  resources?: string[];
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
const docs: Doc[] = files.flatMap((f) =>
  parseAllDocuments(readFileSync(join(DIR, f), 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${f}: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJSON() as Doc;
  }),
);
const ofKind = (kind: string) => docs.filter((d) => d.kind === kind);
const deployments = ofKind('Deployment');
const containerOf = (d: Doc) => (d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;

describe('the Kubernetes manifests', () => {
  it('parse, and the kustomization lists every manifest file', () => {
    expect(docs.length).toBeGreaterThan(10);
    const kustomization = docs.find((d) => d.kind === 'Kustomization')!;
    expect([...kustomization.resources!].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
  });

  it('run every app as a Deployment of the app’s built entry point, at least two replicas', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...APPS].sort());
    for (const d of deployments) {
      const c = containerOf(d);
      expect(c.command).toEqual(['node', `apps/${d.metadata.name}/dist/main.js`]);
      expect(existsSync(resolve(DIR, `../../apps/${d.metadata.name}/src/main.ts`))).toBe(true);
      expect(d.spec!.replicas).toBeGreaterThanOrEqual(2);
      const spec = d.spec as { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } };
      expect(spec.template.metadata.labels).toEqual(expect.objectContaining(spec.selector.matchLabels));
    }
  });

  it('give every container liveness, readiness and startup probes and CPU and memory requests', () => {
    for (const d of deployments) {
      const c = containerOf(d);
      for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
        expect(probe?.httpGet ?? probe?.tcpSocket).toBeDefined();
      }
      expect(c.resources?.requests?.cpu).toMatch(/^\d+m?$/);
      expect(c.resources?.requests?.memory).toMatch(/^\d+(Mi|Gi)$/);
      expect(c.resources?.limits?.memory).toMatch(/^\d+(Mi|Gi)$/);
    }
  });

  it('probe the gateway on /healthz (liveness) and /readyz (readiness)', () => {
    const c = containerOf(deployments.find((d) => d.metadata.name === 'gateway')!);
    expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
  });

  it('probe every headless service on its metrics port: /healthz (liveness), /readyz (readiness and startup)', () => {
    for (const name of APPS.filter((a) => a !== 'gateway')) {
      const d = deployments.find((x) => x.metadata.name === name)!;
      const c = containerOf(d);
      const metrics = c.ports?.find((p) => p.name === 'metrics');
      expect({ name, metricsPort: metrics?.containerPort }).toEqual({ name, metricsPort: 9464 });
      const probes = { liveness: c.livenessProbe?.httpGet, readiness: c.readinessProbe?.httpGet, startup: c.startupProbe?.httpGet };
      expect({ name, probes }).toEqual({
        name,
        probes: {
          liveness: { path: '/healthz', port: 'metrics' },
          readiness: { path: '/readyz', port: 'metrics' },
          startup: { path: '/readyz', port: 'metrics' },
        },
      });
      // The readiness check waits up to 2 s per dependency: the probe must wait longer.
      expect(c.readinessProbe?.timeoutSeconds).toBeGreaterThan(2);
      expect(c.startupProbe?.timeoutSeconds).toBeGreaterThan(2);
    }
    const config = ofKind('ConfigMap').find((m) => m.metadata.name === 'openwop-config')!;
    expect(config.data?.METRICS_PORT).toBe('9464');
  });

  it('cover every Deployment with a PodDisruptionBudget, and the gateway with a Service and an HPA', () => {
    const pdbs = ofKind('PodDisruptionBudget').map((p) => (p.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels);
    for (const d of deployments) {
      const labels = (d.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      expect(pdbs).toContainEqual(labels);
    }
    expect(ofKind('Service').map((s) => s.metadata.name)).toContain('gateway');
    const hpa = ofKind('HorizontalPodAutoscaler').find((h) => h.metadata.name === 'gateway')!;
    expect(hpa.spec).toEqual(expect.objectContaining({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' }, minReplicas: 2 }));
  });

  it('name only ConfigMaps and Secret keys that exist, and give the token service its key ring', () => {
    const configMaps = new Set(ofKind('ConfigMap').map((c) => c.metadata.name));
    const secrets = new Map(ofKind('Secret').map((s) => [s.metadata.name, new Set(Object.keys(s.stringData ?? s.data ?? {}))]));
    for (const d of deployments) {
      const c = containerOf(d);
      for (const from of c.envFrom ?? []) expect(configMaps.has(from.configMapRef!.name)).toBe(true);
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) expect(secrets.get(ref.name)?.has(ref.key)).toBe(true);
      }
    }
    const tokenEnv = containerOf(deployments.find((d) => d.metadata.name === 'token')!).env!.map((e) => e.name);
    expect(tokenEnv).toEqual(expect.arrayContaining(['WOP_TOKEN_KEYS', 'DATABASE_URL']));
  });
});
