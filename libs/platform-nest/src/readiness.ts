import type { Bus } from '@openwop/platform-bus';
import type { ReadinessReport } from '@openwop/observability';

/** Per-dependency budget of a service's readiness check (its metrics listener's `/readyz`). */
export const READINESS_TIMEOUT_MS = 2_000;

/** State of one dependency in a readiness check. */
export type DependencyState = 'up' | 'down';

/** The dependencies every process needs answering: the bus and Postgres. */
export interface ReadinessDependencies {
  readonly bus: Pick<Bus, 'healthy'>;
  readonly dataSource: { query(sql: string): Promise<unknown> };
}

/** A readiness report with the state of each platform dependency. */
export interface PlatformReadiness extends ReadinessReport {
  readonly checks: { readonly bus: DependencyState; readonly database: DependencyState };
  readonly failing: readonly ('bus' | 'database')[];
}

/**
 * Asks the bus (`healthy()`) and Postgres (`SELECT 1`) at once, each within `timeoutMs`; a check
 * that throws, answers false or runs out of time is `down`. Used by the gateway's `/readyz` and by
 * every process's metrics listener.
 */
export async function checkPlatformReadiness(
  deps: ReadinessDependencies,
  timeoutMs: number = READINESS_TIMEOUT_MS,
): Promise<PlatformReadiness> {
  const [bus, database] = await Promise.all([
    check(async () => (await deps.bus.healthy()) === true, timeoutMs),
    check(async () => {
      await deps.dataSource.query('SELECT 1');
      return true;
    }, timeoutMs),
  ]);
  const checks = { bus, database };
  const failing = (['bus', 'database'] as const).filter((name) => checks[name] === 'down');
  return { ok: failing.length === 0, checks, failing };
}

async function check(probe: () => Promise<boolean>, timeoutMs: number): Promise<DependencyState> {
  try {
    return (await withTimeout(probe(), timeoutMs, 'check timed out')) ? 'up' : 'down';
  } catch {
    return 'down';
  }
}

/**
 * Resolves with `work`'s value, or rejects with `Error(message)` once `ms` passed. The timer is
 * cleared either way, so no handle keeps the process alive.
 */
async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
