/** DI tokens of the engine's own ports. */
export const CLOCK = Symbol('ENGINE_CLOCK');

/** The engine's only source of time: an ISO timestamp, passed into the decider (STYLE G2). */
export interface Clock {
  now(): string;
}

export const systemClock: Clock = { now: () => new Date().toISOString() };
