/**
 * Why a provider call failed:
 * - `unauthorized`: the server refused the credentials (HTTP 401/403);
 * - `rate_limited`: too many requests (HTTP 429);
 * - `bad_request`: the request cannot succeed as sent (HTTP 400/404/422, unknown model, no scripted reply);
 * - `unavailable`: the server failed or could not be reached (HTTP 5xx, connection refused or lost);
 * - `timeout`: the server did not answer, or stopped streaming, within the configured time;
 * - `aborted`: the caller's signal aborted the call;
 * - `protocol`: the server answered something that is not a chat completion.
 */
export type LlmErrorCode =
  | 'unauthorized'
  | 'rate_limited'
  | 'bad_request'
  | 'unavailable'
  | 'timeout'
  | 'aborted'
  | 'protocol';

const RETRYABLE: ReadonlySet<LlmErrorCode> = new Set(['rate_limited', 'unavailable', 'timeout']);

export interface LlmProviderErrorOptions {
  /** The HTTP status, when the server answered one. */
  readonly status?: number;
  /** How long the server asked to wait before retrying (from `Retry-After`), in ms. */
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
}

/**
 * A failed provider call. `retryable` tells whether sending the same request again may succeed
 * (rate limits, unavailability, timeouts); adapters already retried what they safely could before
 * the first streamed byte, so a caller that retries restarts the whole turn.
 * Messages never contain credentials.
 */
export class LlmProviderError extends Error {
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(
    readonly code: LlmErrorCode,
    message: string,
    options: LlmProviderErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LlmProviderError';
    this.retryable = RETRYABLE.has(code);
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** A provider cannot be built from the given configuration (missing or invalid settings). */
export class LlmConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmConfigurationError';
  }
}
