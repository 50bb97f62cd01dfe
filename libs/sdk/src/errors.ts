/**
 * A non-2xx answer from an OpenWOP host, carrying the spec's error envelope (`rest-endpoints.md`
 * §Error response shape): `code` is the envelope's `error`, `details` its `details`. Subclasses
 * group the codes a client reacts to differently; `instanceof OpenWopApiError` catches them all.
 */
export class OpenWopApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'OpenWopApiError';
  }
}

/** `400 validation_error` (and other 400s): `details.errors[]` names the offending fields by JSON pointer. */
export class OpenWopValidationError extends OpenWopApiError {
  override name = 'OpenWopValidationError';
}

/** `401 unauthenticated`, `403 forbidden`, `key_expired`, `key_revoked`. */
export class OpenWopAuthError extends OpenWopApiError {
  override name = 'OpenWopAuthError';
}

/** `404 not_found`, `interrupt_not_found`. */
export class OpenWopNotFoundError extends OpenWopApiError {
  override name = 'OpenWopNotFoundError';
}

/** `409`: `interrupt_already_resolved`, `run_terminal`, `run_already_active`, … */
export class OpenWopConflictError extends OpenWopApiError {
  override name = 'OpenWopConflictError';
}

/** `410 interrupt_expired`. */
export class OpenWopGoneError extends OpenWopApiError {
  override name = 'OpenWopGoneError';
}

/** `422`: a well-formed answer the interrupt refuses (`correlation_mismatch`, `interrupt_cancelled`, …). */
export class OpenWopUnprocessableError extends OpenWopApiError {
  override name = 'OpenWopUnprocessableError';
}

/** `429 rate_limited`, `503 unavailable`: retry later; `retryAfterMs` from `Retry-After` when sent. */
export class OpenWopUnavailableError extends OpenWopApiError {
  override name = 'OpenWopUnavailableError';
  retryAfterMs?: number;
}

/** No HTTP answer at all (connection refused, reset, DNS): `status` 0, `code` `network_error`. */
export class OpenWopNetworkError extends OpenWopApiError {
  override name = 'OpenWopNetworkError';
  constructor(message: string, cause?: unknown) {
    super(0, 'network_error', message);
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * The typed exception for a non-2xx answer: the class follows the HTTP status, `code` is the
 * envelope's `error` (or `http_<status>` when the body is not an envelope).
 */
export function apiErrorFrom(
  status: number,
  body: unknown,
  statusText = '',
  retryAfter?: string | null,
): OpenWopApiError {
  const env = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    message?: unknown;
    details?: unknown;
  };
  const code = typeof env.error === 'string' ? env.error : `http_${status}`;
  const message = typeof env.message === 'string' ? env.message : statusText || `HTTP ${status}`;
  const details =
    typeof env.details === 'object' && env.details !== null
      ? (env.details as Record<string, unknown>)
      : undefined;
  const Class = classFor(status);
  const error = new Class(status, code, message, details);
  if (error instanceof OpenWopUnavailableError && retryAfter && /^\d+$/.test(retryAfter))
    error.retryAfterMs = Number(retryAfter) * 1000;
  return error;
}

function classFor(status: number): typeof OpenWopApiError {
  switch (status) {
    case 400:
      return OpenWopValidationError;
    case 401:
    case 403:
      return OpenWopAuthError;
    case 404:
      return OpenWopNotFoundError;
    case 409:
      return OpenWopConflictError;
    case 410:
      return OpenWopGoneError;
    case 422:
      return OpenWopUnprocessableError;
    case 429:
    case 503:
      return OpenWopUnavailableError;
    default:
      return OpenWopApiError;
  }
}

/**
 * A wait helper (`waitForStatus`, `waitForInterrupt`) reached its deadline. Not an answer of the
 * host, so not an {@link OpenWopApiError}: `runId`, what was awaited and the last status seen.
 */
export class OpenWopTimeoutError extends Error {
  override name = 'OpenWopTimeoutError';
  constructor(
    readonly runId: string,
    readonly awaited: string,
    readonly lastStatus: string | undefined,
    readonly timeoutMs: number,
  ) {
    super(`Run ${runId}: no ${awaited} within ${timeoutMs} ms (last status ${lastStatus ?? 'unknown'}).`);
  }
}

/**
 * A wait helper gave up because the run ended (`completed`, `failed`, `cancelled`) without what
 * was awaited ever happening; `status` is how it ended.
 */
export class OpenWopRunEndedError extends Error {
  override name = 'OpenWopRunEndedError';
  constructor(
    readonly runId: string,
    readonly awaited: string,
    readonly status: string,
  ) {
    super(`Run ${runId} ended ${status} without ${awaited}.`);
  }
}
