import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** One POST to an address already resolved and checked by the caller's egress guard. */
export interface PinnedPost {
  /** The URL as checked (`http:` or `https:`). */
  readonly url: URL;
  /** The name it was resolved from: sent as `Host` and as TLS SNI. */
  readonly hostname: string;
  /** The checked address the socket connects to; nothing resolves the name again. */
  readonly address: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Bounds the whole exchange, response included, not only socket inactivity. */
  readonly timeoutMs: number;
  /** Read at most this many bytes of the response body; `0` (the default) reads none. */
  readonly maxResponseBytes?: number;
}

/** How a pinned POST ended: a status (and the body, when asked for), or a transport error. */
export type PinnedAnswer =
  | { readonly status: number; readonly body?: string }
  | { readonly error: string; readonly status?: number };

/**
 * POSTs to `address` with `hostname` as `Host` and SNI (the socket's `lookup` answers with the
 * checked address), never following a redirect: a 3xx is returned as it is. Shared by webhook
 * deliveries, the registration's endpoint verification, and interrupt callbacks (RFC 0093 §A; v2
 * webhooks.md §Egress).
 */
export async function postPinned(p: PinnedPost): Promise<PinnedAnswer> {
  const family = isIP(p.address) === 6 ? 6 : 4;
  const pinned: LookupFunction = (_name, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: p.address, family },
      ]);
    else callback(null, p.address, family);
  };
  const https = p.url.protocol === 'https:';
  const options: RequestOptions & { servername?: string } = {
    method: 'POST',
    host: p.hostname,
    port: p.url.port === '' ? (https ? 443 : 80) : Number(p.url.port),
    path: `${p.url.pathname}${p.url.search}`,
    headers: { ...p.headers, 'Content-Length': String(Buffer.byteLength(p.body)) },
    lookup: pinned,
    timeout: p.timeoutMs,
    ...(https && isIP(p.hostname) === 0 ? { servername: p.hostname } : {}),
  };
  const limit = p.maxResponseBytes ?? 0;
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: PinnedAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(a);
    };
    const req = (https ? httpsRequest : httpRequest)(options, (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size >= limit) return;
        chunks.push(c);
        size += c.length;
      });
      res.on('end', () =>
        done(
          limit > 0
            ? { status, body: Buffer.concat(chunks).subarray(0, limit).toString('utf8') }
            : { status },
        ),
      );
      res.on('error', (e) => done({ status, error: e.message }));
    });
    const deadline = setTimeout(() => {
      req.destroy(new Error(`timed out after ${p.timeoutMs} ms`));
    }, p.timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`timed out after ${p.timeoutMs} ms`)));
    req.on('error', (e) => done({ error: e.message }));
    req.end(p.body);
  });
}
