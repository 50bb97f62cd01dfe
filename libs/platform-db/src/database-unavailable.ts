/**
 * SQLSTATEs of a server that is shutting down, restarting or not accepting connections yet
 * (class 57 operator intervention, 08 connection exception), and Node's connection errors: the
 * statement did not run, so the caller may answer "unavailable, retry later".
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const UNAVAILABLE_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** True when `error` (or a cause, or TypeORM's `driverError`) says Postgres is down or restarting. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code))) return true;
    if (UNAVAILABLE_MESSAGES.test(e.message)) return true;
    e = (e as { driverError?: unknown }).driverError ?? e.cause;
  }
  return false;
}
