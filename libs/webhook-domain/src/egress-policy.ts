/**
 * Where a webhook may be delivered (webhooks.md §SSRF protection, RFC 0093 §A). Pure: the caller
 * resolves the host name and hands the addresses in; the same rules run at registration and again
 * at delivery, on the addresses the connection is then pinned to.
 */

/** Why a destination is refused; `null` when it may be used. */
export type EgressRefusal =
  | { readonly reason: 'malformed_url'; readonly detail: string }
  | { readonly reason: 'scheme_not_https'; readonly detail: string }
  | { readonly reason: 'denied_host'; readonly detail: string }
  | {
      readonly reason: 'denied_address';
      readonly detail: string;
      readonly address: string;
      readonly range: string;
    }
  | { readonly reason: 'unresolvable'; readonly detail: string };

/** Host names refused whatever they resolve to. */
const DENIED_HOSTNAMES = new Set(['localhost', 'metadata', 'metadata.google.internal']);

/** The denied IPv4 ranges: [name, network, prefix length]. */
const DENIED_V4: readonly (readonly [string, string, number])[] = [
  ['this-network', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['carrier-grade-nat', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
];

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
    return {
      refusal: {
        reason: 'scheme_not_https',
        detail: `scheme ${url.protocol.replace(/:$/, '')} is not https`,
      },
    };
  }
  if (!isAllowed && (DENIED_HOSTNAMES.has(hostname) || hostname.endsWith('.localhost'))) {
    return { refusal: { reason: 'denied_host', detail: `host ${hostname} is denied` } };
  }
  if (!isAllowed && ipVersion(hostname) !== 0) {
    const denied = checkAddress(hostname);
    if (denied) return { refusal: denied };
  }
  return { target: { url, hostname } };
}

/**
 * Every resolved address must be allowed (a name with one private address among public ones is
 * refused). An allow-listed host name skips the address check.
 */
export function checkResolvedAddresses(
  hostname: string,
  addresses: readonly string[],
  allowed: AllowedHosts,
): EgressRefusal | null {
  if (addresses.length === 0) return { reason: 'unresolvable', detail: `host ${hostname} has no address` };
  if (allowed.has(hostname.toLowerCase())) return null;
  for (const a of addresses) {
    const denied = checkAddress(a);
    if (denied) return denied;
  }
  return null;
}

/** The refusal of one literal address, or `null` when it is public. */
export function checkAddress(address: string): EgressRefusal | null {
  const range = deniedRange(address);
  return range === null
    ? null
    : { reason: 'denied_address', detail: `address ${address} is ${range}`, address, range };
}

/** The name of the denied range `address` is in, or `null` (also `unparseable` for garbage). */
export function deniedRange(address: string): string | null {
  const v = ipVersion(address);
  if (v === 4) return deniedV4(v4ToInt(address)!);
  if (v === 6) return deniedV6(address);
  return 'unparseable';
}

function deniedV4(ip: number): string | null {
  for (const [name, network, bits] of DENIED_V4) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((ip & mask) >>> 0 === (v4ToInt(network)! & mask) >>> 0) return name;
  }
  return null;
}

function deniedV6(address: string): string | null {
  const words = v6Words(address);
  if (!words) return 'unparseable';
  if (words.every((w) => w === 0)) return 'unspecified';
  if (words.slice(0, 7).every((w) => w === 0) && words[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible: judged as the IPv4 address they carry.
  if (words.slice(0, 5).every((w) => w === 0) && (words[5] === 0xffff || words[5] === 0)) {
    return deniedV4(((words[6]! << 16) | words[7]!) >>> 0);
  }
  if ((words[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((words[0]! & 0xfe00) === 0xfc00) return 'unique-local';
  if ((words[0]! & 0xff00) === 0xff00) return 'multicast';
  if (words[0] === 0x64 && words[1] === 0xff9b) return deniedV4(((words[6]! << 16) | words[7]!) >>> 0); // NAT64
  if (words[0] === 0x2001 && words[1] === 0x0db8) return 'documentation';
  return null;
}

/** 4, 6, or 0 when `s` is not a literal address. */
export function ipVersion(s: string): 0 | 4 | 6 {
  if (v4ToInt(s) !== null) return 4;
  if (v6Words(s) !== null) return 6;
  return 0;
}

function v4ToInt(s: string): number | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const b = Number(p);
    if (b > 255) return null;
    n = n * 256 + b;
  }
  return n >>> 0;
}

function v6Words(input: string): number[] | null {
  let s = input.replace(/^\[|\]$/g, '').split('%')[0]!;
  if (!s.includes(':')) return null;
  const lastColon = s.lastIndexOf(':');
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    // An embedded IPv4 tail (::ffff:10.0.0.1) becomes its two hex words.
    const n = v4ToInt(maybeV4);
    if (n === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const w of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return null;
      out.push(parseInt(w, 16));
    }
    return out;
  };
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (!left || !right) return null;
  const total = left.length + right.length;
  if (halves.length === 1) return total === 8 ? left : null;
  if (total > 7) return null;
  return [...left, ...new Array<number>(8 - total).fill(0), ...right];
}
