import { ONE_PROCESS_POLL_MS } from '@openwop/platform-db';

/** DI tokens of the interrupt service's own ports. */
export const CLOCK = Symbol('CLOCK');
export const INTERRUPT_TIMER_OPTIONS = Symbol('INTERRUPT_TIMER_OPTIONS');

/** The handlers' only source of time: an ISO timestamp, passed into the decider (STYLE G2). */
export interface Clock {
  now(): string;
}

export const systemClock: Clock = { now: () => new Date().toISOString() };

export interface InterruptTimerOptions {
  /** Mean poll interval of the durable timer (each tick is jittered ±25 %). */
  readonly intervalMs: number;
  /** Due interrupts claimed per transaction. */
  readonly batchSize: number;
}

/**
 * Reads `INTERRUPT_TIMER_MS` (default 250 ms; in the one-process host, `ONE_PROCESS_POLL_MS`, since
 * it is told of every due time it writes) and `INTERRUPT_TIMER_BATCH` (default 200 rows).
 */
export function timerOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  mode: 'embedded' | 'distributed' = 'distributed',
): InterruptTimerOptions {
  return {
    intervalMs: positiveInteger(env, 'INTERRUPT_TIMER_MS', mode === 'embedded' ? ONE_PROCESS_POLL_MS : 250),
    batchSize: positiveInteger(env, 'INTERRUPT_TIMER_BATCH', 200),
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}
