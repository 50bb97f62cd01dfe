import { deniedBlockOf, isNat64WellKnown, parseIpv4, parseIpv6 } from './special-purpose-addresses';

/**
 * Where a webhook may be delivered (webhooks.md §SSRF protection, RFC 0093 §A). Pure: the caller
 * resolves the host name and hands the addresses in; the same rules run at registration and again
 * at delivery, on the addresses the connection is then pinned to.
 */

/**
 * Why a destination is refused; `null` when it may be used. A refusal is shown to the tenant (the
 * registration's error, a delivery's `lastError`), so `denied_address` names an address only when
 * the tenant wrote it in the URL: for a host name it says "not a public address" and nothing about
 * what the name resolved to, and a name with no address at all reads the same, so the answer tells
 * neither where an internal name points nor whether it exists.
 */
export type EgressRefusal =
  | { readonly reason: 'malformed_url'; readonly detail: string }
  | { readonly reason: 'scheme_not_https'; readonly detail: string }
  | { readonly reason: 'denied_host'; readonly detail: string }
  | { readonly reason: 'denied_address'; readonly detail: string; readonly range?: string };

/**
 * Ranges where an operator's own receiver may live (a test receiver on this machine, a private
 * network): a refusal of such a literal address names the opt-in, {@link ALLOW_HOSTS_HINT}.
 */
const LOCAL_RANGES = new Set([
  'loopback',
  'private-use',
  'link-local',
  'shared-address-space',
  'unique-local',
  'this-host',
]);

/**
 * The opt-in a refusal of a local receiver names: `WEBHOOK_ALLOW_HOSTS` (an operator setting). It
 * is added only where the tenant wrote the local host or address in the URL itself, never to the
 * refusal of a host name that resolved to one (which says nothing of what it resolved to).
 */
export const ALLOW_HOSTS_HINT =
  'to deliver to a local or private receiver, the operator lists its host in WEBHOOK_ALLOW_HOSTS';

/** Host names refused whatever they resolve to. */
const DENIED_HOSTNAMES = new Set(['localhost', 'metadata', 'metadata.google.internal']);

/** A parsed URL's parts that matter here. */
export interface WebhookTarget {
  readonly url: URL;
  /** Host name without IPv6 brackets, lower case. */
  readonly hostname: string;
}

/**
 * The allow-list of host names (as written in the URL, lower case) that may use `http:` and
 * private addresses: loopback test receivers and private deployments (`WEBHOOK_ALLOW_HOSTS`).
 * Matching is on the name as written, never on what it resolves to, so a public name rebinding to
 * an allowed address gains nothing.
 */
export type AllowedHosts = ReadonlySet<string>;

/** Parses a comma-separated allow-list (`127.0.0.1,localhost`). */
export function parseAllowedHosts(raw: string | undefined): AllowedHosts {
  return new Set(
    (raw ?? '')
      .split(',')
      .map((h) =>
        h
          .trim()
          .toLowerCase()
          .replace(/^\[|\]$/g, ''),
      )
      .filter((h) => h.length > 0),
  );
}

/** Checks what can be checked without DNS: syntax, scheme, denied names, a literal address. */
export function checkWebhookUrl(
  raw: string,
  allowed: AllowedHosts,
): { target: WebhookTarget } | { refusal: EgressRefusal } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refusal: { reason: 'malformed_url', detail: 'url is not an absolute URL' } };
  }
  if (url.username || url.password)
    return { refusal: { reason: 'malformed_url', detail: 'url must not carry credentials' } };
  const hostname = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const isAllowed = allowed.has(hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowed)) {
    const scheme = url.protocol.replace(/:$/, '');
    return {
      refusal: {
        reason: 'scheme_not_https',
        detail: `scheme ${scheme} is not https${scheme === 'http' ? `; ${ALLOW_HOSTS_HINT} (then http is allowed for it)` : ''}`,
      },
    };
  }
  if (!isAllowed && (DENIED_HOSTNAMES.has(hostname) || hostname.endsWith('.localhost'))) {
    const local = hostname === 'localhost' || hostname.endsWith('.localhost');
    return {
      refusal: {
        reason: 'denied_host',
        detail: `host ${hostname} is denied${local ? `; ${ALLOW_HOSTS_HINT}` : ''}`,
      },
    };
  }
  if (!isAllowed && ipVersion(hostname) !== 0) {
    const denied = checkAddress(hostname);
    if (
      denied &&
      denied.reason === 'denied_address' &&
      denied.range !== undefined &&
      LOCAL_RANGES.has(denied.range)
    ) {
      return { refusal: { ...denied, detail: `${denied.detail}; ${ALLOW_HOSTS_HINT}` } };
    }
    if (denied) return { refusal: denied };
  }
  return { target: { url, hostname } };
}

/**
 * Every resolved address must be allowed (a name with one private address among public ones is
 * refused, and so is a name with none). An allow-listed host name skips the address check. The
 * refusal never names an address (see {@link EgressRefusal}).
 */
export function checkResolvedAddresses(
  hostname: string,
  addresses: readonly string[],
  allowed: AllowedHosts,
): EgressRefusal | null {
  if (addresses.length > 0 && allowed.has(hostname.toLowerCase())) return null;
  if (addresses.length > 0 && addresses.every((a) => deniedRange(a) === null)) return null;
  return { reason: 'denied_address', detail: `host ${hostname} is not a public address` };
}

/** The refusal of one literal address as written in a URL, or `null` when it is public. */
export function checkAddress(address: string): EgressRefusal | null {
  const range = deniedRange(address);
  return range === null
    ? null
    : { reason: 'denied_address', detail: `address ${address} is not a public address (${range})`, range };
}

/**
 * The name of the denied range `address` is in (the tables of `special-purpose-addresses.ts`), or `null` when it is public; `unparseable` for anything that is
 * not one literal address (an ambiguous spelling such as `010.0.0.1` included).
 */
export function deniedRange(address: string): string | null {
  const v4 = parseIpv4(address);
  if (v4 !== null) return deniedBlockOf(v4, 4);
  const v6 = parseIpv6(address);
  if (v6 === null) return 'unparseable';
  if (isNat64WellKnown(v6)) {
    const carried = deniedBlockOf(v6 & 0xffffffffn, 4);
    return carried === null ? null : `nat64-of-${carried}`;
  }
  return deniedBlockOf(v6, 6);
}

/** 4, 6, or 0 when `s` is not a literal address. */
export function ipVersion(s: string): 0 | 4 | 6 {
  if (parseIpv4(s) !== null) return 4;
  if (parseIpv6(s) !== null) return 6;
  return 0;
}
