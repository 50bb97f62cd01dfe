import { postPinned, type HostResolver } from '@openwop/platform-nest';
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
  const answer = await postPinned({
    url,
    hostname,
    address,
    headers: d.headers,
    body: d.body,
    timeoutMs: d.timeoutMs,
  });
  if ('error' in answer)
    return {
      ok: false,
      ...(answer.status !== undefined ? { status: answer.status } : {}),
      error: answer.error,
      address,
    };
  return { ...outcomeOfStatus(answer.status), address };
}
