import { randomUUID } from 'node:crypto';
import { MessageTooLargeError } from '@openwop/contracts';
import { HttpException, NotFoundException } from '@nestjs/common';
import { DomainError } from '@openwop/kernel';
import { BrokerUnreachableError, RequestTimeoutError } from '@openwop/platform-bus';
import { isDatabaseUnavailable } from '@openwop/platform-db';
import { ApiError } from './api.error';
import { BODY_TOO_DEEP } from './body-intake';
import { errorEnvelope, type ErrorEnvelope } from './error-envelope.type';
import { errorCodeUnder, resolveErrorCode, type ErrorCode } from './error-status.table';
import { unknownRouteError } from './unknown-route.mapper';

/** What the error filter writes, and what (if anything) it must log. */
export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorEnvelope;
  readonly headers: Readonly<Record<string, string>>;
  /** Set for failures the client cannot fix; logged with the correlation id, never sent. */
  readonly internal?: { readonly correlationId: string; readonly cause: unknown };
}

/** The request facts the mapping needs. */
export interface FailedRequest {
  readonly method: string;
  readonly path: string;
  /** The major the request is served under (ADR 0041); `1` when absent. */
  readonly major?: 1 | 2;
}

/** Statuses a Nest `HttpException` may carry, and the spec code each is answered with. */
const HTTP_STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'validation_error',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  503: 'unavailable',
};

/** Default `Retry-After` (seconds) of a `503` that did not say otherwise. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Maps anything a handler, guard, pipe or middleware threw to the spec's error envelope.
 * Known rejections keep their code and details; everything else becomes `500 internal_error`
 * with only a `details.correlationId`, so no internals leak.
 */
export function toErrorResponse(exception: unknown, request: FailedRequest): ErrorResponse {
  const mapped = toV1ErrorResponse(exception, request);
  const answered = errorCodeUnder(request.major ?? 1, mapped.body.error, mapped.status);
  if (answered.reason === undefined) return mapped;
  // Under major 2 a code v2's registry lacks is answered as its registered twin; the v1 code is the reason.
  return {
    ...mapped,
    status: answered.status,
    body: errorEnvelope(answered.code, mapped.body.message, {
      ...mapped.body.details,
      reason: answered.reason,
    }),
  };
}

function toV1ErrorResponse(exception: unknown, request: FailedRequest): ErrorResponse {
  const bodyParserError = fromBodyParser(exception);
  if (bodyParserError) return fromDomainError(bodyParserError);
  if (exception instanceof DomainError) return fromDomainError(exception);
  if (exception instanceof MessageTooLargeError) {
    return fromDomainError(
      new ApiError(
        'payload_too_large',
        'The command this request becomes is larger than the host carries between its services.',
        {
          limitBytes: exception.limitBytes,
        },
      ),
    );
  }
  if (exception instanceof RequestTimeoutError) {
    return fromDomainError(
      new ApiError(
        'unavailable',
        'The request was not confirmed in time and may still take effect; retry later.',
        undefined,
        DEFAULT_RETRY_AFTER_SECONDS,
      ),
    );
  }
  if (exception instanceof BrokerUnreachableError) {
    return fromDomainError(
      new ApiError(
        'unavailable',
        'The message bus is unreachable; retry later.',
        undefined,
        DEFAULT_RETRY_AFTER_SECONDS,
      ),
    );
  }
  if (isDatabaseUnavailable(exception)) {
    return fromDomainError(
      new ApiError(
        'unavailable',
        'The database is unavailable (restarting?); retry later, reading the resource first: a command may already have taken effect.',
        undefined,
        DEFAULT_RETRY_AFTER_SECONDS,
      ),
    );
  }
  if (exception instanceof NotFoundException && isRouterNotFound(exception)) {
    return fromDomainError(unknownRouteError(request.method, request.path));
  }
  if (exception instanceof HttpException) {
    const code = HTTP_STATUS_CODES[exception.getStatus()];
    if (code) return fromDomainError(new ApiError(code, exception.message));
  }
  return internalError(exception);
}

/**
 * Maps a body-parser failure (`type` and `status` set by the `body-parser` package) to a
 * rejection; `undefined` for anything else.
 */
export function fromBodyParser(exception: unknown): ApiError | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  switch ((exception as { type?: unknown }).type) {
    case 'entity.parse.failed':
      return new ApiError('validation_error', 'The request body is not valid JSON.', {
        errors: [{ path: '', message: 'malformed JSON' }],
      });
    case BODY_TOO_DEEP: {
      const maxDepth = (exception as { maxDepth?: unknown }).maxDepth;
      return new ApiError(
        'validation_error',
        `The request body is nested deeper than ${String(maxDepth)} levels.`,
        {
          errors: [{ path: '', message: `must not nest objects/arrays deeper than ${String(maxDepth)}` }],
          maxDepth,
        },
      );
    }
    case 'entity.too.large':
      return new ApiError('payload_too_large', 'The request body is too large.', {
        limitBytes: (exception as { limit?: unknown }).limit,
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'The request body encoding is not supported.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ApiError('validation_error', 'The request body could not be read.');
    default:
      return fromBodyReadFailure(exception);
  }
}

/**
 * Any other failure while the body was read, which body-parser wraps as a client error with no
 * `type` (a `Content-Encoding: gzip` body that is not gzip fails in zlib): the body could not be
 * read, the client's fault, never a 500.
 */
function fromBodyReadFailure(exception: object): ApiError | undefined {
  const status = (exception as { status?: unknown }).status;
  if (typeof status !== 'number' || (exception as { expose?: unknown }).expose !== true) return undefined;
  if (status === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (status === 415)
    return new ApiError('unsupported_media_type', 'The request body encoding is not supported.');
  if (status >= 400 && status < 500)
    return new ApiError(
      'validation_error',
      'The request body could not be read (is its Content-Encoding right?).',
    );
  return undefined;
}

function fromDomainError(error: DomainError): ErrorResponse {
  const resolved = resolveErrorCode(error.code);
  if (!resolved.known) return internalError(error);
  const headers: Record<string, string> = {};
  if (resolved.code === 'unavailable') {
    const seconds = error instanceof ApiError ? error.retryAfterSeconds : undefined;
    headers['Retry-After'] = String(seconds ?? DEFAULT_RETRY_AFTER_SECONDS);
  }
  if (resolved.code === 'unauthenticated') headers['WWW-Authenticate'] = 'Bearer realm="openwop"';
  // identity.md §2.5: a 401 SHOULD carry a Bearer challenge; a token was presented and refused.
  if (resolved.code === 'interrupt_token_invalid')
    headers['WWW-Authenticate'] = 'Bearer realm="openwop", error="invalid_token"';
  if (resolved.code === 'internal_error') return internalError(error);
  return {
    status: resolved.status,
    body: errorEnvelope(resolved.code, error.message, error.details),
    headers,
  };
}

function internalError(cause: unknown): ErrorResponse {
  const correlationId = randomUUID();
  return {
    status: 500,
    body: errorEnvelope('internal_error', 'An unexpected error occurred.', { correlationId }),
    headers: {},
    internal: { correlationId, cause },
  };
}

/** Nest's router answers an unmatched path with `NotFoundException('Cannot <METHOD> <url>')`. */
function isRouterNotFound(exception: NotFoundException): boolean {
  return exception.message.startsWith('Cannot ');
}
