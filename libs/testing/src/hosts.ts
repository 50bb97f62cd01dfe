import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startApp, freePort, REPO_ROOT, type AppProcess } from './processes';

/**
 * Test API keys: `t1` has every scope in tenant t1; `t1b` is a second principal of tenant t1 (a
 * second approver); `t2` is another tenant; `readonly` lacks writes.
 */
export const TEST_KEYS = {
  t1: 'test_t1_' + 'a'.repeat(24),
  t1b: 'test_t1b_' + 'd'.repeat(24),
  t2: 'test_t2_' + 'b'.repeat(24),
  readonly: 'test_ro_' + 'c'.repeat(24),
} as const;

const ALL_SCOPES = [
  'manifest:read',
  'manifest:write',
  'runs:create',
  'runs:read',
  'runs:cancel',
  'artifacts:read',
  'webhooks:manage',
  'approvals:respond',
];

export const TEST_API_KEYS_JSON = JSON.stringify([
  { key: TEST_KEYS.t1, scopes: ALL_SCOPES, tenant: 't1', id: 'key-t1' },
  { key: TEST_KEYS.t1b, scopes: ALL_SCOPES, tenant: 't1', id: 'key-t1b' },
  { key: TEST_KEYS.t2, scopes: ALL_SCOPES, tenant: 't2', id: 'key-t2' },
  { key: TEST_KEYS.readonly, scopes: ['runs:read', 'manifest:read'], tenant: 't1', id: 'key-ro' },
]);

/** A host under test: the gateway URLs and every process behind them. */
export interface RunningHost {
  readonly mode: 'embedded' | 'distributed';
  readonly gateways: readonly string[];
  readonly processes: AppProcess[];
  readonly env: Record<string, string>;
  /** Starts one more instance of an app (after a kill, or to scale out); `env` adds to the host's for it alone. */
  restart(app: string, env?: Record<string, string>): Promise<AppProcess>;
  stop(): Promise<void>;
}

/** A fresh signing key ring for the token service (`WOP_TOKEN_KEYS`), one random 32-byte key. */
export function testTokenKeysJson(kid = 'test-k1'): string {
  return JSON.stringify({ active: kid, keys: { [kid]: randomBytes(32).toString('base64') } });
}

/** A fresh webhook secret key ring (`OPENWOP_WEBHOOK_SECRET_KEYS`, ADR 0028), one random 32-byte key. */
export function testWebhookSecretKeys(kid = 'test-w1'): string {
  return `${kid}:${randomBytes(32).toString('base64')}`;
}

/**
 * The embedded host as one process (PGlite in memory unless `databaseUrl`). `env` adds to or
 * overrides the process environment (e.g. `WOP_TOKEN_TTL_MS`, `WOP_TOKEN_KEYS`); `rootDir` runs
 * another checkout's build (the previous release's, for the upgrade test).
 */
export async function startEmbeddedHost(
  options: { databaseUrl?: string; env?: Record<string, string>; rootDir?: string } = {},
): Promise<RunningHost> {
  const from = { rootDir: options.rootDir ?? REPO_ROOT };
  const port = await freePort();
  const env: Record<string, string> = {
    PORT: String(port),
    WOP_API_KEYS: TEST_API_KEYS_JSON,
    OPENWOP_DATA_DIR: 'memory',
    // On Postgres the rows outlive the process, so the webhook key ring must too (ADR 0028).
    ...(options.databaseUrl
      ? { DATABASE_URL: options.databaseUrl, OPENWOP_WEBHOOK_SECRET_KEYS: testWebhookSecretKeys() }
      : {}),
    ...options.env,
  };
  const proc = await startApp('embedded', 'apps/embedded/dist/main.js', env, /ready in \d+ ms/, from);
  const processes = [proc];
  return {
    mode: 'embedded',
    gateways: [`http://127.0.0.1:${port}`],
    processes,
    env,
    restart: async (_app, extra) => {
      const p = await startApp(
        'embedded',
        'apps/embedded/dist/main.js',
        { ...env, ...extra },
        /ready in \d+ ms/,
        from,
      );
      processes.push(p);
      return p;
    },
    stop: () => stopAll(processes),
  };
}

const SERVICES = ['engine', 'projector', 'interrupt', 'token', 'notifier'] as const;

/**
 * The services of the build at `rootDir`: all of them for this checkout; for another (an older
 * release) those it has, since a release may predate a service (the notifier came after 26a3158).
 */
function servicesOf(rootDir: string): readonly string[] {
  if (rootDir === REPO_ROOT) return SERVICES;
  return SERVICES.filter((s) => existsSync(resolve(rootDir, `apps/${s}/dist/main.js`)));
}

/**
 * Connections per process so that a whole stack (every service and gateway, `instances` of each)
 * holds at most {@link STACK_CONNECTIONS} of the server's `max_connections` (100 by default), with
 * the default 10 as the ceiling: a stack of 6 processes × 2 instances at 10 each could take 120, and
 * a kill -9 restart then met `sorry, too many clients already`.
 */
function stackPoolSize(processKinds: number, instances: number): number {
  return Math.max(2, Math.min(10, Math.floor(STACK_CONNECTIONS / (processKinds * instances))));
}

/** Postgres connections one test stack may hold, leaving room for the test's own and a restart's. */
const STACK_CONNECTIONS = 60;

/**
 * The distributed stack as separate processes over the real Kafka broker and Postgres:
 * `instances` of every service and gateway. A fresh topic namespace isolates it from other tests;
 * every token-service instance shares one fresh key ring. `env` adds to or overrides the environment.
 */
export async function startDistributedStack(options: {
  databaseUrl: string;
  instances?: number;
  namespace?: string;
  env?: Record<string, string>;
  /** The checkout whose build runs (default this one; see {@link StartAppOptions.rootDir}). */
  rootDir?: string;
}): Promise<RunningHost> {
  const instances = options.instances ?? 1;
  const from = { rootDir: options.rootDir ?? REPO_ROOT };
  const env: Record<string, string> = {
    DATABASE_URL: options.databaseUrl,
    DATABASE_POOL_SIZE: String(stackPoolSize(servicesOf(from.rootDir).length + 1, instances)),
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    OPENWOP_NAMESPACE: options.namespace ?? `test-${randomBytes(4).toString('hex')}`,
    WOP_API_KEYS: TEST_API_KEYS_JSON,
    WOP_TOKEN_KEYS: testTokenKeysJson(),
    OPENWOP_WEBHOOK_SECRET_KEYS: testWebhookSecretKeys(),
    ...options.env,
  };
  const processes: AppProcess[] = [];
  const gateways: string[] = [];
  const startService = async (app: string, extra: Record<string, string> = {}) => {
    if (app === 'gateway') {
      const port = await freePort();
      const p = await startApp(
        'gateway',
        'apps/gateway/dist/main.js',
        { ...env, ...extra, PORT: String(port) },
        /listening on/,
        from,
      );
      gateways.push(`http://127.0.0.1:${port}`);
      processes.push(p);
      return p;
    }
    const p = await startApp(app, `apps/${app}/dist/main.js`, { ...env, ...extra }, / ready/, from);
    processes.push(p);
    return p;
  };
  try {
    for (let i = 0; i < instances; i++) {
      // allSettled: when one service fails to start, the others of the batch still finish starting
      // (and are pushed) before everything is stopped, so no process outlives a failed start.
      const started = await Promise.allSettled(servicesOf(from.rootDir).map((s) => startService(s)));
      const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
    for (let i = 0; i < instances; i++) await startService('gateway');
  } catch (e) {
    await stopAll(processes);
    throw e;
  }
  return {
    mode: 'distributed',
    gateways,
    processes,
    env,
    restart: startService,
    stop: () => stopAll(processes),
  };
}

async function stopAll(processes: readonly AppProcess[]): Promise<void> {
  await Promise.all(processes.map((p) => p.kill('SIGTERM')));
}
