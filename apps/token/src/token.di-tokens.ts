/** DI tokens of the token service's own ports. */
export const KEY_RING = Symbol('KEY_RING');
export const TOKEN_SETTINGS = Symbol('TOKEN_SETTINGS');
export const CLOCK = Symbol('TOKEN_CLOCK');

/** The handlers' only source of time, so tests can move it past a token's expiry. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
