import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '@openwop/kernel';
import { ApiError } from '../common/api.error';
import { toErrorResponse } from '../common/error-response.mapper';
import { requestMajorOf } from '../common/protocol-negotiation.middleware';
import { redactToken } from './token-routing-key.parser';

/**
 * The error envelope for the `/v1/interrupts/{token}` routes: the same mapping as the global
 * filter, but an unexpected failure is logged with the token cut to its first 8 characters — the
 * path is a bearer credential and never reaches a log whole. A token that does not verify is
 * `401 interrupt_token_invalid` under major 2 (identity.md §4) and, on `/v1/`, v1's `404
 * interrupt_not_found` with the same words as a token naming no interrupt (ADR 0007).
 */
@Catch()
export class TokenRouteErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const path = request.path.replace(
      /^(\/v1\/interrupts\/)([^/]+)/,
      (_m, prefix: string, token: string) => prefix + redactToken(token),
    );
    const major = requestMajorOf(request);
    const mapped = toErrorResponse(major === 1 ? asV1Refusal(exception) : exception, {
      method: request.method,
      path,
      major,
    });
    if (mapped.internal) {
      const { correlationId, cause } = mapped.internal;
      const detail = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
      this.logger.error(`${request.method} ${path} failed (correlationId ${correlationId}): ${detail}`);
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    for (const [name, value] of Object.entries(mapped.headers)) response.setHeader(name, value);
    response.status(mapped.status).json(mapped.body);
  }
}

/** v1's one answer to a token that does not verify: the words of a token naming no interrupt. */
function asV1Refusal(exception: unknown): unknown {
  return exception instanceof DomainError && exception.code === 'interrupt_token_invalid'
    ? new ApiError('interrupt_not_found', 'No interrupt is known for this token.')
    : exception;
}
