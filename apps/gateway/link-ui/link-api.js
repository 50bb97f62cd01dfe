// The page's only way to the host: the signed-token routes, with the token from this page's own URL
// and no credentials of any kind (no API key, no cookie). Nothing is fetched from another origin,
// and no request carries a Referer (the URL holds the token).

import { TERMINAL_RUN_STATUSES } from './vocabulary.js';

/** A refused or failed call: the error envelope's `error` (as `code`), `message` and `details`. */
export class LinkFailure extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** The token of this page: the last segment of `/v1/interrupts/<token>`. */
export function tokenOfLocation(loc = location) {
  const m = /^\/v1\/interrupts\/([^/]+)\/?$/.exec(loc.pathname);
  return m ? decodeURIComponent(m[1]) : undefined;
}

const base = (token) => `/v1/interrupts/${encodeURIComponent(token)}`;

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new LinkFailure(
      0,
      'network_error',
      'The service did not answer. Check your connection and try again.',
    );
  }
  let parsed;
  try {
    parsed = await res.json();
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    if (parsed && typeof parsed.error === 'string')
      throw new LinkFailure(res.status, parsed.error, parsed.message || parsed.error, parsed.details);
    throw new LinkFailure(res.status, `http_${res.status}`, `The service answered ${res.status}.`);
  }
  return parsed;
}

/** The interrupt the token names (`GET /v1/interrupts/{token}`). */
export const inspect = (token) => call('GET', base(token));
/** Answers it (`POST /v1/interrupts/{token}` with `{resumeValue}`). */
export const resolve = (token, resumeValue) => call('POST', base(token), { resumeValue });
/** Where it stands once the link is used up: pending, answered or run-ended. */
export const outcome = (token) => call('GET', `${base(token)}/outcome`);
/** One page of its conversation's transcript, turns after `after`. */
export const transcript = (token, after) =>
  call(
    'GET',
    `${base(token)}/conversation${after !== undefined ? `?after=${encodeURIComponent(after)}` : ''}`,
  );

/** Run statuses after which nothing changes. */
export const ENDED_STATUSES = new Set(TERMINAL_RUN_STATUSES);
