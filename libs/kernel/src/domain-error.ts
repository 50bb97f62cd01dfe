/**
 * A deterministic rejection decided by domain code. It is never retried; the gateway maps its
 * `code` once, in one table, to the spec's HTTP status.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** Exhaustiveness guard for discriminated-union switches. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
