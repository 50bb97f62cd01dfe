import { DomainError } from '@openwop/kernel';
import type { ErrorCode } from './error-status.table';

/**
 * A rejection decided at the HTTP edge. It is a {@link DomainError}, so the error filter maps it
 * through the same table; `retryAfterSeconds` becomes the `Retry-After` header.
 */
export class ApiError extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    details?: Record<string, unknown>,
    readonly retryAfterSeconds?: number,
  ) {
    super(code, message, details);
    this.name = 'ApiError';
  }

  /** `400 validation_error` with the offending fields under `details.errors`. */
  static validation(
    message: string,
    errors: readonly FieldError[],
    extra?: Record<string, unknown>,
  ): ApiError {
    return new ApiError('validation_error', message, { ...extra, errors });
  }

  /** `404 not_found`; used for absent resources and for resources of another tenant alike. */
  static notFound(message: string): ApiError {
    return new ApiError('not_found', message);
  }
}

/** One invalid field: a JSON-pointer-like path and what is wrong with it. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}
