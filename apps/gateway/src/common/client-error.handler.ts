import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope } from './error-envelope.type';
import { statusForErrorCode, type ErrorCode } from './error-status.table';

/**
 * The raw HTTP answer to a request Node's parser refused before any route saw it (a request line or
 * headers over the 16 KiB limit, a malformed request line): the spec's envelope instead of Node's
 * empty `431`/`400`. `undefined` when the peer is gone and nothing should be written.
 */
export function clientErrorResponse(errorCode: string | undefined): string | undefined {
  if (errorCode === 'ECONNRESET') return undefined;
  const [code, message]: [ErrorCode, string] =
    errorCode === 'HPE_HEADER_OVERFLOW'
      ? ['request_header_fields_too_large', 'The request line or headers are too large.']
      : ['validation_error', 'The request is not valid HTTP.'];
  const status = statusForErrorCode(code);
  const body = JSON.stringify(errorEnvelope(code, message));
  return [
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Installs {@link clientErrorResponse} as `server`'s `clientError` handler. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const response = clientErrorResponse(error.code);
    if (response === undefined || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(response);
  });
}
