import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { HostResolver } from '@openwop/platform-nest';
import {
  checkResolvedAddresses,
  checkWebhookUrl,
  outcomeOfStatus,
  type AllowedHosts,
  type AttemptOutcome,
} from '@openwop/webhook-domain';

/** One attempt to send. */
export interface PinnedDelivery {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

/**
 * Sends one delivery the way RFC 0093 §A asks: the URL is checked again, the host name is resolved
 * once, every address is checked, and the connection goes to the first checked address (the
 * socket's `lookup` answers with it, so nothing resolves the name again), with the original name
 * as `Host` and TLS SNI. Redirects are not followed: a 3xx is a failed attempt.
 */
export async function deliverPinned(
  d: PinnedDelivery,
  deps: { readonly resolve: HostResolver; readonly allowed: AllowedHosts },
): Promise<AttemptOutcome & { readonly address?: string }> {
  const parsed = checkWebhookUrl(d.url, deps.allowed);
  if ('refusal' in parsed) return { ok: false, error: `egress refused: ${parsed.refusal.detail}` };
  const { url, hostname } = parsed.target;
  const addresses = await deps.resolve(hostname, 'deliver');
  const refusal = checkResolvedAddresses(hostname, addresses, deps.allowed);
  if (refusal) return { ok: false, error: `egress refused: ${refusal.detail}` };
  const address = addresses[0]!;
  const family = isIP(address) === 6 ? 6 : 4;
  const pinned: LookupFunction = (_name, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const https = url.protocol === 'https:';
  const options: RequestOptions & { servername?: string } = {
    method: 'POST',
    host: hostname,
    port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...d.headers, 'Content-Length': String(Buffer.byteLength(d.body)) },
    lookup: pinned,
    timeout: d.timeoutMs,
    ...(https && isIP(hostname) === 0 ? { servername: hostname } : {}),
  };
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...o, address });
    };
    const req = (https ? httpsRequest : httpRequest)(options, (res) => {
      res.resume(); // the body is not read; the status decides
      res.on('end', () => done(outcomeOfStatus(res.statusCode ?? 0)));
      res.on('error', (e) => done({ ok: false, status: res.statusCode ?? 0, error: e.message }));
    });
    // The whole attempt, response included, is bounded, not only socket inactivity.
    const deadline = setTimeout(() => {
      req.destroy(new Error(`timed out after ${d.timeoutMs} ms`));
    }, d.timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`timed out after ${d.timeoutMs} ms`)));
    req.on('error', (e) => done({ ok: false, error: e.message }));
    req.end(d.body);
  });
}
