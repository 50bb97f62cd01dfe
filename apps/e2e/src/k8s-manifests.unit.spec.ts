import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMetricsServer } from '@openwop/observability';
import { parseAllDocuments, stringify } from 'yaml';

// infra/k8s is what a platform team applies as it is; no cluster runs here, so this pins what
// `kubectl apply -k` would get: every object valid against the Kubernetes API's JSON schemas (the
// npm package kubernetes-models, through tools/k8s/validate-manifests.mjs), every app a Deployment
// with probes on the routes it serves and resource requests, a PodDisruptionBudget and a CPU
// HorizontalPodAutoscaler, the gateway a Service; every Secret key and ConfigMap a Deployment names exists.

const DIR = resolve(__dirname, '../../../infra/k8s');
const REPO = resolve(__dirname, '../../..');
const VALIDATOR = join(REPO, 'tools/k8s/validate-manifests.mjs');
const APPS = ['gateway', 'engine', 'interrupt', 'token', 'projector', 'notifier'];

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
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
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
const containerOf = (d: Doc) =>
  (d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;

interface Validated {
  file: string;
  kind?: string;
  name?: string;
  schema?: string;
  errors: string[];
}
/** tools/k8s/validate-manifests.mjs on `dir`: its exit code and one result per object. */
function validate(dir: string): { status: number | null; results: Validated[]; stderr: string } {
  const run = spawnSync(process.execPath, [VALIDATOR, dir], { encoding: 'utf8', timeout: 60_000 });
  const results = run.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Validated);
  return { status: run.status, results, stderr: run.stderr };
}

describe('the Kubernetes manifests', () => {
  it('parse, and the kustomization lists every manifest file', () => {
    expect(docs.length).toBeGreaterThan(10);
    const kustomization = docs.find((d) => d.kind === 'Kustomization')!;
    expect([...kustomization.resources!].sort()).toEqual(
      files.filter((f) => f !== 'kustomization.yaml').sort(),
    );
  });

  it('are valid against the Kubernetes API schemas (kubernetes-models), every object', () => {
    const { status, results, stderr } = validate(DIR);
    expect(stderr).toBe('');
    expect(results.filter((r) => r.errors.length > 0)).toEqual([]);
    expect(status).toBe(0);
    // Every object was checked: all but the Kustomization against an API schema.
    expect(results).toHaveLength(docs.length);
    expect(results.filter((r) => r.schema === 'kustomize').map((r) => r.kind)).toEqual(['Kustomization']);
  });

  it('fail the schema check when an object is not what the API takes', () => {
    const broken = mkdtempSync(join(tmpdir(), 'openwop-k8s-broken-'));
    try {
      const deployment = structuredClone(deployments.find((d) => d.metadata.name === 'engine')!) as Doc & {
        spec: { replicas?: unknown; template: { spec: { containers: Partial<Container>[] } } };
      };
      deployment.spec.replicas = 'two';
      delete deployment.spec.template.spec.containers[0]!.name;
      const hpa = structuredClone(
        ofKind('HorizontalPodAutoscaler').find((h) => h.metadata.name === 'engine')!,
      );
      delete (hpa.spec as { maxReplicas?: number }).maxReplicas;
      const unknown = { apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } };
      writeFileSync(
        join(broken, 'broken.yaml'),
        [deployment, hpa, unknown].map((d) => stringify(d)).join('---\n'),
      );
      const { status, results } = validate(broken);
      expect(status).toBe(1);
      expect(results.map((r) => [r.kind, r.errors.join('; ')])).toEqual([
        ['Deployment', expect.stringContaining('spec/replicas must be integer')],
        ['HorizontalPodAutoscaler', expect.stringContaining('must have required property maxReplicas')],
        ['Deploymnet', 'no Kubernetes schema for apiVersion apps/v1 kind Deploymnet'],
      ]);
      expect(results[0]!.errors.join('; ')).toContain('containers/0 must have required property name');
      expect(results[0]!.errors.join('; ')).toContain('spec/replicas must be integer');
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('run every app as a Deployment of the app’s built entry point, its replica count left to the autoscaler', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...APPS].sort());
    for (const d of deployments) {
      const c = containerOf(d);
      expect(c.command).toEqual(['node', `apps/${d.metadata.name}/dist/main.js`]);
      expect(existsSync(resolve(DIR, `../../apps/${d.metadata.name}/src/main.ts`))).toBe(true);
      // `kubectl apply` of a count would reset what the HPA chose on every apply.
      expect(d.spec!.replicas).toBeUndefined();
      const spec = d.spec as {
        selector: { matchLabels: Record<string, string> };
        template: { metadata: { labels: Record<string, string> } };
      };
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
      // Its process is runServiceProcess, whose metrics listener (METRICS_PORT) serves the probes.
      expect({
        name,
        main: /\brunServiceProcess\(\s*'[a-z]+'/.test(
          readFileSync(join(REPO, `apps/${name}/src/main.ts`), 'utf8'),
        ),
      }).toEqual({ name, main: true });
      const d = deployments.find((x) => x.metadata.name === name)!;
      const c = containerOf(d);
      const metrics = c.ports?.find((p) => p.name === 'metrics');
      expect({ name, metricsPort: metrics?.containerPort }).toEqual({ name, metricsPort: 9464 });
      const probes = {
        liveness: c.livenessProbe?.httpGet,
        readiness: c.readinessProbe?.httpGet,
        startup: c.startupProbe?.httpGet,
      };
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

  it('name probe paths the metrics listener serves (200 from a listener started here)', async () => {
    const server = await startMetricsServer(0, '127.0.0.1', { ready: () => Promise.resolve({ ok: true }) });
    try {
      const paths = new Set(
        deployments
          .filter((d) => d.metadata.name !== 'gateway')
          .flatMap((d) => {
            const c = containerOf(d);
            return [c.livenessProbe, c.readinessProbe, c.startupProbe].map((p) => p!.httpGet!.path);
          }),
      );
      expect([...paths].sort()).toEqual(['/healthz', '/readyz']);
      for (const path of paths) {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
      }
    } finally {
      await server.close();
    }
  });

  it('cover every Deployment with a PodDisruptionBudget and a CPU HorizontalPodAutoscaler, the gateway with a Service', () => {
    const pdbs = ofKind('PodDisruptionBudget').map(
      (p) => (p.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
    );
    const partitions = Number(
      ofKind('ConfigMap').find((m) => m.metadata.name === 'openwop-config')!.data!.KAFKA_PARTITIONS,
    );
    expect(partitions).toBeGreaterThan(0);
    interface HpaSpec {
      scaleTargetRef: { apiVersion: string; kind: string; name: string };
      minReplicas: number;
      maxReplicas: number;
      metrics: {
        type: string;
        resource?: { name: string; target: { type: string; averageUtilization?: number } };
      }[];
    }
    const hpas = ofKind('HorizontalPodAutoscaler').map((h) => h.spec as unknown as HpaSpec);
    for (const d of deployments) {
      const name = d.metadata.name;
      const labels = (d.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      expect(pdbs).toContainEqual(labels);
      const mine = hpas.filter((h) => h.scaleTargetRef.name === name);
      expect({ name, hpas: mine.length }).toEqual({ name, hpas: 1 });
      const hpa = mine[0]!;
      expect(hpa.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
      expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.metrics).toContainEqual({
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } },
      });
      // Utilization is of the CPU request: a container without one would never scale.
      expect(containerOf(d).resources?.requests?.cpu).toBeDefined();
      // A consumer group uses at most one instance per partition.
      if (name !== 'gateway')
        expect({ name, max: hpa.maxReplicas <= partitions }).toEqual({ name, max: true });
    }
    expect(hpas).toHaveLength(deployments.length);
    expect(ofKind('Service').map((s) => s.metadata.name)).toContain('gateway');
  });

  it('name only ConfigMaps and Secret keys that exist, and give the token service its key ring', () => {
    const configMaps = new Set(ofKind('ConfigMap').map((c) => c.metadata.name));
    const secrets = new Map(
      ofKind('Secret').map((s) => [s.metadata.name, new Set(Object.keys(s.stringData ?? s.data ?? {}))]),
    );
    for (const d of deployments) {
      const c = containerOf(d);
      for (const from of c.envFrom ?? []) expect(configMaps.has(from.configMapRef!.name)).toBe(true);
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref)
          expect({ ref, present: secrets.get(ref.name)?.has(ref.key) }).toEqual({ ref, present: true });
      }
    }
    const tokenEnv = containerOf(deployments.find((d) => d.metadata.name === 'token')!).env!.map(
      (e) => e.name,
    );
    expect(tokenEnv).toEqual(expect.arrayContaining(['WOP_TOKEN_KEYS', 'DATABASE_URL']));
    // The gateway seals webhook signing secrets and the notifier opens them: one key ring for both.
    for (const name of ['gateway', 'notifier']) {
      const env = containerOf(deployments.find((d) => d.metadata.name === name)!).env!;
      expect(env.find((e) => e.name === 'OPENWOP_WEBHOOK_SECRET_KEYS')?.valueFrom?.secretKeyRef).toEqual({
        name: 'openwop-secrets',
        key: 'OPENWOP_WEBHOOK_SECRET_KEYS',
      });
    }
  });
});
