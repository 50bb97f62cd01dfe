import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { toErrorResponse } from '../common/error-response.mapper';
import { requestMajorOf } from '../common/protocol-negotiation.middleware';
import { redactToken } from './token-routing-key.parser';

/**
 * The error envelope for the `/v1/interrupts/{token}` routes: the same mapping as the global
 * filter, but an unexpected failure is logged with the token cut to its first 8 characters — the
 * path is a bearer credential and never reaches a log whole.
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
    const mapped = toErrorResponse(exception, {
      method: request.method,
      path,
      major: requestMajorOf(request),
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
