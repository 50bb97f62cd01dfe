/**
 * SQLSTATEs of a server that is shutting down, restarting or not accepting connections yet
 * (class 57 operator intervention, 08 connection exception), or that refuses a connection or a
 * statement for want of resources (class 53: too many clients, out of memory, disk full), and
 * Node's connection errors: the statement did not run, so the caller may answer "unavailable,
 * retry later".
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53000',
  '53100',
  '53200',
  '53300',
]);
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i;
/**
 * SQLSTATEs of a transaction the server rolled back for the moment's contention, not for its
 * content (serialization failure, deadlock): the same statements may well succeed when run again.
 */
const CONTENTION_SQLSTATES = new Set(['40001', '40P01']);

/** True when `error` (or a cause, or TypeORM's `driverError`) says Postgres is down, restarting or refusing. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return someCause(
    error,
    (code, message) =>
      (code !== undefined && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code))) ||
      UNAVAILABLE_MESSAGES.test(message),
  );
}

/**
 * The one classification of a database failure for work that is retried (the bus's
 * `isTransientFailure`, the projector): true when the failure is the moment's, not the work's, so
 * running the same work again later may succeed and nothing about the work itself is wrong: the
 * database is unavailable or refusing ({@link isDatabaseUnavailable}), or rolled the transaction
 * back for contention (serialization failure 40001, deadlock 40P01). Anything else (a constraint,
 * a type, a bug) is the work's own failure.
 */
export function isTransientDatabaseFailure(error: unknown): boolean {
  return (
    isDatabaseUnavailable(error) ||
    someCause(error, (code) => code !== undefined && CONTENTION_SQLSTATES.has(code))
  );
}

/** Walks `error`, its TypeORM `driverError` and its causes (5 deep); true when `test` holds for one. */
function someCause(error: unknown, test: (code: string | undefined, message: string) => boolean): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (test(typeof code === 'string' ? code : undefined, e.message)) return true;
    e = (e as { driverError?: unknown }).driverError ?? e.cause;
  }
  return false;
}
