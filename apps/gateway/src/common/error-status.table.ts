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
  /**
   * A `standard-webhooks-1` registration whose endpoint did not answer the verification request
   * with its challenge (RFC 0201 §D; v2 webhooks.md); nothing is registered. `details.reason`.
   */
  webhook_endpoint_unverified: 400,
  /** A `core.credential` node naming a provider this host is not a client of (v2 oauth.md §Token lifecycle). */
  oauth_provider_unsupported: 400,
  /** A `core.credential` node asking for a scope its provider does not list (v2 oauth.md §Token lifecycle). */
  oauth_scope_unsupported: 400,
  run_already_exists: 409,
  run_terminal: 409,
  /** `POST /v1/runs/{runId}:pause` of a run already paused (rest-endpoints.md); `details.pausedAt`. */
  run_already_paused: 409,
  /** `POST /v1/runs/{runId}:resume` of a run that is not paused; `details.runStatus`. */
  run_not_paused: 409,
  /** The `Idempotency-Key` was used before with a different request (idempotency.md §Record shape). */
  idempotency_key_mismatch: 409,
  /** A v2 `Idempotency-Key` outside the grammar or under the 128-bit floor (v2 idempotency.md §Layer 1). */
  idempotency_key_invalid: 400,
  /** A request with the same `Idempotency-Key` is still executing (idempotency.md §Concurrent duplicates). */
  idempotency_in_flight: 409,
  interrupt_not_found: 404,
  /**
   * A signed token that does not verify: bad MAC, an `ow2.` `alg` we do not advertise, a `kid` we do
   * not hold, or no token shape at all (identity.md §4). Major 2 only: the v1 token surface answers
   * it `404 interrupt_not_found` (ADR 0007; `TokenRouteErrorFilter`).
   */
  interrupt_token_invalid: 401,
  interrupt_already_resolved: 409,
  /** Someone else holds a live claim on the interrupt (ADR 0035); `details.claimedBy`, `details.claimExpiresAt`. */
  interrupt_claimed: 409,
  interrupt_expired: 410,
  /** An interrupt of a child run invalidated by its parent's cancel cascading (interrupt-profiles.md §cascade-cancel). */
  interrupt_gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** `OpenWOP-Version` names a major this host does not serve (versioning.md §1.3); `details.protocolVersions`. */
  protocol_version_unsupported: 406,
  /** A `/v1/…` path with `OpenWOP-Version` other than `1` (versioning.md §1.3). */
  protocol_version_mismatch: 400,
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
export function resolveErrorCode(code: string): {
  readonly code: ErrorCode;
  readonly status: number;
  readonly known: boolean;
} {
  const aliased = ERROR_CODE_ALIASES[code] ?? code;
  if (isKnownErrorCode(aliased)) return { code: aliased, status: ERROR_STATUS[aliased], known: true };
  return { code: 'internal_error', status: ERROR_STATUS.internal_error, known: false };
}

/** The HTTP status of `code` (see {@link resolveErrorCode}). */
export function statusForErrorCode(code: string): number {
  return resolveErrorCode(code).status;
}

/**
 * Codes of this table that OpenWOP v2's registry (`spec/v2/errors.json`, errors.md) does not hold,
 * and the registered code a response under major 2 answers instead (errors.md: "A host MUST emit a
 * registered code"). The original code rides along as `details.reason` (errors.md §Host-service
 * refusals: a finer cause, never routed on). Every other code is registered under both majors with
 * the same status.
 */
export const V2_ERROR_CODES: Readonly<
  Partial<Record<ErrorCode, { readonly code: string; readonly status: number }>>
> = {
  subscription_not_found: { code: 'not_found', status: 404 },
  run_already_exists: { code: 'run_state_conflict', status: 409 },
  run_already_paused: { code: 'run_state_conflict', status: 409 },
  run_not_paused: { code: 'run_state_conflict', status: 409 },
  interrupt_claimed: { code: 'run_state_conflict', status: 409 },
  // errors.md §One code per state: an interrupt whose run ended (cancelled, cascaded) is already resolved.
  interrupt_gone: { code: 'interrupt_already_resolved', status: 409 },
  interrupt_cancelled: { code: 'interrupt_already_resolved', status: 409 },
  correlation_mismatch: { code: 'validation_error', status: 400 },
  sequence_not_found: { code: 'fork_point_invalid', status: 422 },
  webhook_limit_exceeded: { code: 'validation_error', status: 400 },
  unavailable: { code: 'service_unavailable', status: 503 },
};

/** The code and status a response under `major` answers for the table's `code` and `status`. */
export function errorCodeUnder(
  major: 1 | 2,
  code: string,
  status: number,
): { readonly code: string; readonly status: number; readonly reason?: string } {
  if (major === 1 || !isKnownErrorCode(code)) return { code, status };
  const v2 = V2_ERROR_CODES[code];
  return v2 ? { ...v2, reason: code } : { code, status };
}
