import { isStorableText } from '@openwop/contracts';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api.error';
import { toErrorResponse } from './error-response.mapper';

/** U+0000 (Postgres text cannot hold it) or a lone surrogate. */
function unstorable(s: string): boolean {
  return !isStorableText(s);
}

/** An encoded NUL in a URL (`%00`); a raw one never gets past the HTTP parser. */
const ENCODED_NUL = /%00/i;

/**
 * The JSON pointer of the first string (or object key) in `value` that Postgres cannot store, or of
 * the first number past double precision (`1e400` parses as Infinity, which JSON writes back as
 * `null`: the value would change silently on its way in), `undefined` when there is none. Such a
 * value would fail every service that writes it, or not be what the client sent, so the edge
 * refuses it.
 */
export function findUnstorableText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return unstorable(value) ? path : undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], `${path}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (unstorable(key)) return at;
    const found = findUnstorableText(child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The refusal of a request carrying unstorable text, or `undefined` to let it through. */
export function unstorableTextRefusal(originalUrl: string, body: unknown): ApiError | undefined {
  if (ENCODED_NUL.test(originalUrl)) {
    return ApiError.validation('The URL contains a NUL character (%00).', [
      { path: '', message: 'must not contain U+0000' },
    ]);
  }
  const at = findUnstorableText(body);
  if (at === undefined) return undefined;
  return ApiError.validation(
    'The body contains a NUL character, an unpaired surrogate or a number past double precision.',
    [
      {
        path: at,
        message: 'must not contain U+0000 or unpaired UTF-16 surrogates, nor numbers beyond ±1.8e308',
      },
    ],
  );
}

/** Express middleware (after the body parsers): answers {@link unstorableTextRefusal} with the envelope. */
export function rejectUnstorableText(req: Request, res: Response, next: NextFunction): void {
  const refusal = unstorableTextRefusal(req.originalUrl, req.body);
  if (!refusal) return next();
  const mapped = toErrorResponse(refusal, { method: req.method, path: req.path });
  res.status(mapped.status).set(mapped.headers).json(mapped.body);
}
