import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/** A JSON document served with a strong validator computed once from its bytes. */
export interface ValidatedJson {
  readonly body: string;
  readonly etag: string;
}

/** Serializes `document` once and derives its strong `ETag` (a SHA-256 of the bytes, quoted). */
export function validatedJson(document: unknown): ValidatedJson {
  const body = JSON.stringify(document);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}

/**
 * Whether `If-None-Match` names `etag` (RFC 9110 §13.1.2: weak comparison, `*` matches any). The
 * origin decides this itself: Express's freshness check answers `200` whenever the request also says
 * `Cache-Control: no-cache`, which Node's `fetch` adds to every conditional request, so a client
 * revalidating its copy would never get its `304`.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/**
 * Answers a GET of a fixed JSON document: `ETag` (and `Capabilities-Etag` when asked) and
 * `Cache-Control` on every answer, `304` with no body when the client's validator matches, else the
 * document as `application/json`.
 */
export function sendValidatedJson(
  req: Request,
  res: Response,
  doc: ValidatedJson,
  options: { readonly cacheControl: string; readonly capabilitiesEtag?: boolean },
): void {
  res.setHeader('ETag', doc.etag);
  if (options.capabilitiesEtag) res.setHeader('Capabilities-Etag', doc.etag);
  res.setHeader('Cache-Control', options.cacheControl);
  if (ifNoneMatchHits(req.headers['if-none-match'], doc.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).type('application/json').send(doc.body);
}
