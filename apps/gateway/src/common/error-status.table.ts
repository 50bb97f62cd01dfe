/**
 * The one table that maps an error code to its HTTP status (STYLE G9). Every rejection the gateway
 * answers — its own, a {@link DomainError} from domain code, or an engine reply with `ok: false` —
 * goes through {@link statusForErrorCode}; nothing else picks a status.
 */
export const ERROR_STATUS = {
  validation_error: 400,
  unsupported_stream_mode: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  /** `POST /v1/webhooks` with a URL the SSRF guard refuses (webhooks.md §SSRF protection); `details.reason`. */
  webhook_url_rejected: 400,
  /** A webhook id the caller's tenant has no subscription of. */
  subscription_not_found: 404,
  run_already_exists: 409,
  run_terminal: 409,
  /** `POST /v1/runs/{runId}:pause` of a run already paused (rest-endpoints.md); `details.pausedAt`. */
  run_already_paused: 409,
  /** `POST /v1/runs/{runId}:resume` of a run that is not paused; `details.runStatus`. */
  run_not_paused: 409,
  /** The `Idempotency-Key` was used before with a different request (idempotency.md §Record shape). */
  idempotency_key_mismatch: 409,
  /** A request with the same `Idempotency-Key` is still executing (idempotency.md §Concurrent duplicates). */
  idempotency_in_flight: 409,
  interrupt_not_found: 404,
  interrupt_already_resolved: 409,
  /** Someone else holds a live claim on the interrupt (ADR 0035); `details.claimedBy`, `details.claimExpiresAt`. */
  interrupt_claimed: 409,
  interrupt_expired: 410,
  /** An interrupt of a child run invalidated by its parent's cancel cascading (interrupt-profiles.md §cascade-cancel). */
  interrupt_gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** Node's HTTP parser refused the request line or headers (over 16 KiB), before any route. */
  request_header_fields_too_large: 431,
  interrupt_cancelled: 422,
  correlation_mismatch: 422,
  capability_required: 422,
  /** `POST /v1/runs/{runId}:fork` with a `fromSeq` the source's event log does not hold (replay.md §Endpoint). */
  sequence_not_found: 422,
  /** `POST /v1/webhooks` past the tenant's cap (`WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT`); `details.limit`, `details.scope`. */
  webhook_limit_exceeded: 422,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, number>;

/** An error code the gateway knows how to answer. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Codes other services send that the edge answers under a different spec code. The engine rejects
 * an unknown `workflowId` with `workflow_not_found`; the spec answers that as a malformed request
 * (`POST /v1/runs` → `400`), so the client sees `validation_error`.
 */
export const ERROR_CODE_ALIASES: Readonly<Record<string, ErrorCode>> = {
  workflow_not_found: 'validation_error',
  command_not_applied: 'validation_error', // a command its service could not apply (dead-lettered): 400, not a 15 s 503
};

/** Whether `code` is a row of {@link ERROR_STATUS}. */
export function isKnownErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/**
 * The code and status the gateway answers for `code`, after aliasing. An unknown code maps to
 * `internal_error` (500): a rejection nobody put in the table is a bug, not a client error.
 */
export function resolveErrorCode(code: string): { readonly code: ErrorCode; readonly status: number; readonly known: boolean } {
  const aliased = ERROR_CODE_ALIASES[code] ?? code;
  if (isKnownErrorCode(aliased)) return { code: aliased, status: ERROR_STATUS[aliased], known: true };
  return { code: 'internal_error', status: ERROR_STATUS.internal_error, known: false };
}

/** The HTTP status of `code` (see {@link resolveErrorCode}). */
export function statusForErrorCode(code: string): number {
  return resolveErrorCode(code).status;
}
