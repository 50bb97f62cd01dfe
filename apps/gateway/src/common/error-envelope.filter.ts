import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { loggablePath } from '../observability/loggable-path';
import { toErrorResponse } from './error-response.mapper';

/**
 * The gateway's only exception filter: every error, from any route, guard, pipe, body parser or the
 * router's not-found handler, is answered with the spec's `{error, message, details?}` envelope.
 * Unexpected failures are logged with a correlation id that the client also receives, and the path
 * built from the router's match (`loggablePath`), never the raw URL.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const mapped = toErrorResponse(exception, { method: request.method, path: request.path });
    if (mapped.internal) {
      const { correlationId, cause } = mapped.internal;
      const detail = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
      this.logger.error(`${request.method} ${loggablePath(request)} failed (correlationId ${correlationId}): ${detail}`);
    }
    if (response.headersSent) {
      // A stream (SSE) already started: the status line is gone, so only closing is left.
      response.end();
      return;
    }
    for (const [name, value] of Object.entries(mapped.headers)) response.setHeader(name, value);
    response.status(mapped.status).json(mapped.body);
  }
}
