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

/** Reads `INTERRUPT_TIMER_MS` (default 250 ms). */
export function timerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): InterruptTimerOptions {
  const raw = env.INTERRUPT_TIMER_MS;
  const intervalMs = raw === undefined || raw === '' ? 250 : Number(raw);
  if (!Number.isInteger(intervalMs) || intervalMs < 1)
    throw new Error(`INTERRUPT_TIMER_MS must be a positive integer, got ${raw}`);
  return { intervalMs, batchSize: 50 };
}
