import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { loggablePath } from '../observability/loggable-path';
import { toErrorResponse } from './error-response.mapper';
import { requestMajorOf } from './protocol-negotiation.middleware';

/**
 * The gateway's only exception filter: every error, from any route, guard, pipe, body parser or the
 * router's not-found handler, is answered with the spec's `{error, message, details?}` envelope,
 * under the major the request is served in: under major 2 a code v2's registry lacks is answered
 * as its registered twin (`errorCodeUnder`). An unknown route is named by the path the client
 * sent (`originalUrl`), not by the `/v1` twin a v2 path was routed to.
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
    const sentPath = (request.originalUrl ?? request.url).split('?')[0] ?? request.path;
    const mapped = toErrorResponse(exception, {
      method: request.method,
      path: sentPath,
      major: requestMajorOf(request),
    });
    if (mapped.internal) {
      const { correlationId, cause } = mapped.internal;
      const detail = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
      this.logger.error(
        `${request.method} ${loggablePath(request)} failed (correlationId ${correlationId}): ${detail}`,
      );
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
