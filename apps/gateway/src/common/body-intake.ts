import type { IncomingMessage } from 'node:http';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '@openwop/contracts';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api.error';

/** The JSON media type, the only one every body route takes. */
export const JSON_MEDIA_TYPE = 'application/json';

/** Media types of YAML request bodies (`POST /v1/workflows`); read as text, parsed by the controller. */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** The route that also takes YAML (workflow registration). */
const YAML_ROUTE = { method: 'POST', path: '/v1/workflows' } as const;

/** Whether the request carries a body (the test `type-is` uses: a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/** `type/subtype` of a `Content-Type` header, lower-cased, without parameters; `''` when absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** The media types a route takes: JSON, and YAML on workflow registration. */
export function acceptedMediaTypes(method: string, path: string): readonly string[] {
  return method === YAML_ROUTE.method && path.replace(/\/+$/, '') === YAML_ROUTE.path
    ? [JSON_MEDIA_TYPE, ...YAML_MEDIA_TYPES]
    : [JSON_MEDIA_TYPE];
}

/**
 * The refusal of a request body in a media type its route does not take (`415
 * unsupported_media_type`), or `undefined`. A request without a body passes whatever it says.
 */
export function mediaTypeRefusal(
  method: string,
  path: string,
  contentType: string | undefined,
  withBody: boolean,
): ApiError | undefined {
  if (!withBody) return undefined;
  const accepted = acceptedMediaTypes(method, path);
  const mediaType = mediaTypeOf(contentType);
  if (accepted.includes(mediaType)) return undefined;
  return new ApiError(
    'unsupported_media_type',
    mediaType === ''
      ? 'A request body needs a Content-Type.'
      : `Content-Type ${mediaType} is not accepted here.`,
    { contentType: mediaType === '' ? null : mediaType, accepted },
  );
}

/**
 * Express middleware, first in the chain: the gateway's one media-type policy. It runs before any
 * body parser, so no parser but JSON's (and the YAML text reader on registration) ever reads a body:
 * a form-encoded, multipart or plain-text body is `415`, never parsed into an object by the
 * framework's default URL-encoded parser and handed to a route as if it were JSON.
 */
export function refuseUnsupportedMediaTypes(req: Request, _res: Response, next: NextFunction): void {
  next(mediaTypeRefusal(req.method, req.path, req.headers['content-type'], hasBody(req)));
}

/** The body-parser error type of a body nested deeper than {@link MAX_JSON_DEPTH}. */
export const BODY_TOO_DEEP = 'entity.too.deep';

/**
 * The JSON parser's `verify` hook: refuses a body nested deeper than {@link MAX_JSON_DEPTH} on the
 * raw bytes, before `JSON.parse` and before anything recursive (validation, the unstorable-text
 * scan, serialization) touches it. The error carries `type`, which the body-parser mapping turns
 * into `400 validation_error`.
 */
export function verifyJsonDepth(_req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(`body nested deeper than ${MAX_JSON_DEPTH}`), {
      type: BODY_TOO_DEEP,
      maxDepth: MAX_JSON_DEPTH,
    });
  }
}
