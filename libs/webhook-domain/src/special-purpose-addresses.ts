/**
 * The address blocks a webhook may never reach, as a table. Its rows are the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890, as updated through RFC 9780), checked 2026-11:
 * every block whose "Globally Reachable" is False or N/A is here, and so are the blocks the
 * registry marks globally reachable that are anycast services (AS112, AMT, PCP, TURN, DNS-SD SRP)
 * or identifiers rather than locators (ORCHIDv2, DETs): the nearest instance of an anycast service
 * may be run inside the operator's own network, and no webhook receiver lives at one. Three
 * blocks come from elsewhere: IPv4 multicast (RFC 5771), deprecated IPv6 site-local (RFC 3879) and
 * everything outside 2000::/3, the only IPv6 space IANA allocates for global unicast (which also
 * holds every IPv4-compatible, IPv4-translated and reserved spelling).
 *
 * The one IPv6 block judged by what it carries is the well-known NAT64 prefix 64:ff9b::/96
 * (RFC 6052, globally reachable): a NAT64 gateway forwards it to the IPv4 address in its last 32
 * bits, so it is refused exactly when that IPv4 address is. IPv4-mapped addresses
 * (::ffff:0:0/96) are refused whatever they carry: a public receiver is written, and resolves, as
 * its IPv4 address; the mapped spelling only ever serves to get past a check.
 */

/** One denied block: its CIDR as the registry writes it, a range name for refusals, and its source. */
export interface DeniedBlock {
  readonly cidr: string;
  /** Kebab-case name of the range, e.g. `private-use`, `documentation`. */
  readonly name: string;
  /** The RFC that assigns it, or the registry note that puts it here. */
  readonly source: string;
}

/** IPv4 blocks denied (IPv4 Special-Purpose Address Registry, plus multicast). */
export const DENIED_IPV4_BLOCKS: readonly DeniedBlock[] = [
  { cidr: '0.0.0.0/8', name: 'this-network', source: 'RFC 791' },
  { cidr: '0.0.0.0/32', name: 'this-host', source: 'RFC 1122' },
  { cidr: '10.0.0.0/8', name: 'private-use', source: 'RFC 1918' },
  { cidr: '100.64.0.0/10', name: 'shared-address-space', source: 'RFC 6598' },
  { cidr: '127.0.0.0/8', name: 'loopback', source: 'RFC 1122' },
  { cidr: '169.254.0.0/16', name: 'link-local', source: 'RFC 3927' },
  { cidr: '172.16.0.0/12', name: 'private-use', source: 'RFC 1918' },
  { cidr: '192.0.0.0/24', name: 'ietf-protocol-assignments', source: 'RFC 6890' },
  { cidr: '192.0.0.0/29', name: 'ipv4-service-continuity', source: 'RFC 7335' },
  { cidr: '192.0.0.8/32', name: 'ipv4-dummy', source: 'RFC 7600' },
  { cidr: '192.0.0.9/32', name: 'anycast-pcp', source: 'RFC 7723 (anycast)' },
  { cidr: '192.0.0.10/32', name: 'anycast-turn', source: 'RFC 8155 (anycast)' },
  { cidr: '192.0.0.170/32', name: 'nat64-dns64-discovery', source: 'RFC 8880' },
  { cidr: '192.0.0.171/32', name: 'nat64-dns64-discovery', source: 'RFC 8880' },
  { cidr: '192.0.2.0/24', name: 'documentation', source: 'RFC 5737 (TEST-NET-1)' },
  { cidr: '192.31.196.0/24', name: 'anycast-as112', source: 'RFC 7535 (anycast)' },
  { cidr: '192.52.193.0/24', name: 'anycast-amt', source: 'RFC 7450 (anycast)' },
  { cidr: '192.88.99.0/24', name: 'deprecated-6to4-relay', source: 'RFC 7526' },
  { cidr: '192.168.0.0/16', name: 'private-use', source: 'RFC 1918' },
  { cidr: '192.175.48.0/24', name: 'anycast-as112', source: 'RFC 7534 (anycast)' },
  { cidr: '198.18.0.0/15', name: 'benchmarking', source: 'RFC 2544' },
  { cidr: '198.51.100.0/24', name: 'documentation', source: 'RFC 5737 (TEST-NET-2)' },
  { cidr: '203.0.113.0/24', name: 'documentation', source: 'RFC 5737 (TEST-NET-3)' },
  { cidr: '224.0.0.0/4', name: 'multicast', source: 'RFC 5771' },
  { cidr: '240.0.0.0/4', name: 'reserved', source: 'RFC 1112' },
  { cidr: '255.255.255.255/32', name: 'limited-broadcast', source: 'RFC 919' },
];

/** IPv6 blocks denied (IPv6 Special-Purpose Address Registry, plus site-local and non-2000::/3). */
export const DENIED_IPV6_BLOCKS: readonly DeniedBlock[] = [
  // Outside global unicast: ::/3, 4000::/2 and 8000::/1 are the complement of 2000::/3.
  { cidr: '::/3', name: 'not-global-unicast', source: 'RFC 4291 (IPv6 address space registry)' },
  { cidr: '4000::/2', name: 'not-global-unicast', source: 'RFC 4291 (IPv6 address space registry)' },
  { cidr: '8000::/1', name: 'not-global-unicast', source: 'RFC 4291 (IPv6 address space registry)' },
  { cidr: '::/128', name: 'unspecified', source: 'RFC 4291' },
  { cidr: '::1/128', name: 'loopback', source: 'RFC 4291' },
  { cidr: '::/96', name: 'ipv4-compatible', source: 'RFC 4291 (deprecated)' },
  { cidr: '::ffff:0:0/96', name: 'ipv4-mapped', source: 'RFC 4291' },
  { cidr: '::ffff:0:0:0/96', name: 'ipv4-translated', source: 'RFC 2765' },
  { cidr: '64:ff9b:1::/48', name: 'nat64-local-use', source: 'RFC 8215' },
  { cidr: '100::/64', name: 'discard-only', source: 'RFC 6666' },
  { cidr: '100:0:0:1::/64', name: 'dummy-prefix', source: 'RFC 9780' },
  { cidr: '2001::/23', name: 'ietf-protocol-assignments', source: 'RFC 2928' },
  { cidr: '2001::/32', name: 'teredo', source: 'RFC 4380' },
  { cidr: '2001:1::1/128', name: 'anycast-pcp', source: 'RFC 7723 (anycast)' },
  { cidr: '2001:1::2/128', name: 'anycast-turn', source: 'RFC 8155 (anycast)' },
  { cidr: '2001:1::3/128', name: 'anycast-dns-sd-srp', source: 'RFC 9665 (anycast)' },
  { cidr: '2001:2::/48', name: 'benchmarking', source: 'RFC 5180' },
  { cidr: '2001:3::/32', name: 'anycast-amt', source: 'RFC 7450 (anycast)' },
  { cidr: '2001:4:112::/48', name: 'anycast-as112', source: 'RFC 7535 (anycast)' },
  { cidr: '2001:10::/28', name: 'deprecated-orchid', source: 'RFC 4843' },
  { cidr: '2001:20::/28', name: 'orchid-v2', source: 'RFC 7343 (identifiers, not locators)' },
  { cidr: '2001:30::/28', name: 'drone-remote-id', source: 'RFC 9374 (identifiers, not locators)' },
  { cidr: '2001:db8::/32', name: 'documentation', source: 'RFC 3849' },
  { cidr: '2002::/16', name: '6to4', source: 'RFC 3056' },
  { cidr: '2620:4f:8000::/48', name: 'anycast-as112', source: 'RFC 7534 (anycast)' },
  { cidr: '3fff::/20', name: 'documentation', source: 'RFC 9637' },
  { cidr: '5f00::/16', name: 'srv6-sids', source: 'RFC 9602' },
  { cidr: 'fc00::/7', name: 'unique-local', source: 'RFC 4193' },
  { cidr: 'fe80::/10', name: 'link-local', source: 'RFC 4291' },
  { cidr: 'fec0::/10', name: 'site-local', source: 'RFC 3879 (deprecated)' },
  { cidr: 'ff00::/8', name: 'multicast', source: 'RFC 4291' },
];

/** The well-known NAT64 prefix: judged by the IPv4 address in its last 32 bits. */
export const NAT64_WELL_KNOWN = '64:ff9b::/96';

interface ParsedBlock {
  readonly name: string;
  readonly network: bigint;
  readonly mask: bigint;
  readonly length: number;
}

/**
 * The name of the most specific denied block holding `address` (an IPv4 address as a 32-bit
 * number, or IPv6 as 128), or `null` when none does.
 */
export function deniedBlockOf(address: bigint, family: 4 | 6): string | null {
  const blocks = family === 4 ? V4 : V6;
  for (const b of blocks) if ((address & b.mask) === b.network) return b.name;
  return null;
}

/** Whether an IPv6 address (128-bit) is in the well-known NAT64 prefix. */
export function isNat64WellKnown(address: bigint): boolean {
  return (address & NAT64.mask) === NAT64.network;
}

/** Parses a table's CIDRs once, most specific first (so the first match names the range). */
function parseBlocks(
  blocks: readonly DeniedBlock[],
  bits: 32 | 128,
  parse: (s: string) => bigint | null,
): ParsedBlock[] {
  return blocks.map((b) => parseCidr(b.cidr, b.name, bits, parse)).sort((a, b) => b.length - a.length);
}

function parseCidr(
  cidr: string,
  name: string,
  bits: 32 | 128,
  parse: (s: string) => bigint | null,
): ParsedBlock {
  const [text, len] = cidr.split('/');
  const length = Number(len);
  const value = parse(text!);
  if (value === null || !Number.isInteger(length) || length < 0 || length > bits) {
    throw new Error(`bad CIDR in the denied-address table: ${cidr}`);
  }
  const all = (1n << BigInt(bits)) - 1n;
  const mask = length === 0 ? 0n : (all << BigInt(bits - length)) & all;
  if ((value & mask) !== value) throw new Error(`CIDR has host bits set: ${cidr}`);
  return { name, network: value, mask, length };
}

/** Dotted-quad IPv4 (no leading zeros, which some stacks read as octal) as a 32-bit number. */
export function parseIpv4(s: string): bigint | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const b = Number(p);
    if (b > 255) return null;
    n = (n << 8n) | BigInt(b);
  }
  return n;
}

/**
 * An IPv6 address in any RFC 4291 spelling (compressed, full, upper case, an IPv4 tail, a zone
 * id, brackets) as a 128-bit number.
 */
export function parseIpv6(input: string): bigint | null {
  let s = input.replace(/^\[|\]$/g, '');
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return null;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const words = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const w of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return null;
      out.push(parseInt(w, 16));
    }
    return out;
  };
  const left = words(halves[0]!);
  const right = halves.length === 2 ? words(halves[1]!) : [];
  if (!left || !right) return null;
  const total = left.length + right.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return null;
  const all = [...left, ...new Array<number>(8 - total).fill(0), ...right];
  return all.reduce((n, w) => (n << 16n) | BigInt(w), 0n);
}

const V4 = parseBlocks(DENIED_IPV4_BLOCKS, 32, parseIpv4);
const V6 = parseBlocks(DENIED_IPV6_BLOCKS, 128, parseIpv6);
const NAT64 = parseCidr(NAT64_WELL_KNOWN, 'nat64', 128, parseIpv6);
