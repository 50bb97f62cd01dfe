/**
 * The body of every non-2xx answer (`error-envelope.schema.json`): exactly these three keys, so
 * anything contextual (scopes, retry hints, correlation ids) lives under `details`.
 */
export interface ErrorEnvelope {
  readonly error: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

/** Builds an envelope, leaving `details` out when there are none. */
export function errorEnvelope(
  error: string,
  message: string,
  details?: Record<string, unknown>,
): ErrorEnvelope {
  return details && Object.keys(details).length > 0 ? { error, message, details } : { error, message };
}
