/**
 * Major negotiation (OpenWOP v2 `versioning.md` §1, `headers.md`): which major a request is served
 * under, what the `OpenWOP-Version` response header says, and which refusals the header earns. Pure:
 * the Express middleware (`protocol-negotiation.middleware.ts`) applies it; ADR 0041 records the rules.
 *
 * - `/v1/…` is major 1. `OpenWOP-Version` there may only name major 1; anything else is
 *   `400 protocol_version_mismatch`.
 * - An unversioned path is the v2 surface: absent the header it is major 2 (`headers.md`: "every
 *   other unversioned path is v2"), except `/.well-known/openwop`, whose header-less
 *   representation is `preferredVersion`'s (1.x through the overlap). A header naming major 1 there
 *   is served as major 1; a major we do not list is `406 protocol_version_unsupported`.
 * - Only the major selects; a minor in the header is informational (`2` and `2.0` are the same).
 */

/** The v1 contract this host implements (`protocolVersion` of the v1 discovery document). */
export const V1_CONTRACT = '1.0';
/** The v2 corpus minor our v2 texts come from (`CHANGELOG.md` 2.45.x; `docs/conformance.md`). */
export const V2_CONTRACT = '2.45';
/** Every `<major>.<minor>` served, in major order (`protocolVersions[]`). */
export const PROTOCOL_VERSIONS: readonly string[] = [V1_CONTRACT, V2_CONTRACT];
/** The header-less default through the overlap: a 1.x member (versioning.md §1.1). */
export const PREFERRED_VERSION = V1_CONTRACT;

/** A protocol major this host serves. */
export type ProtocolMajor = 1 | 2;

/** The `OpenWOP-Version` value a response produced under `major` carries. */
export function contractOf(major: ProtocolMajor): string {
  return major === 1 ? V1_CONTRACT : V2_CONTRACT;
}

/** The request header and the response header, as Node spells header names. */
export const VERSION_HEADER = 'openwop-version';

const HEADER_GRAMMAR = /^\s*(0|[1-9][0-9]{0,8})(?:\.(0|[1-9][0-9]{0,8}))?\s*$/;

/**
 * The major an `OpenWOP-Version` value names: `<major>` or `<major>.<minor>`; `undefined` when the
 * header is absent; `null` when it is present but not in that grammar (it names no major we list).
 */
export function majorOfHeader(value: string | readonly string[] | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(',') : (value as string);
  const match = HEADER_GRAMMAR.exec(text);
  return match ? Number(match[1]) : null;
}

const SERVED_MAJORS: ReadonlySet<number> = new Set(PROTOCOL_VERSIONS.map((v) => Number(v.split('.')[0])));

/** Where a path sits in the path space. */
export type PathSpace =
  /** Under `/v1/`. */
  | 'v1'
  /** `/.well-known/openwop`: one resource, representation chosen by the header. */
  | 'discovery'
  /** An unversioned protocol path: the v2 twin of a `/v1/…` path. */
  | 'unversioned'
  /** A shell, health, metrics or asset route: no protocol version to name (versioning.md §1.4). */
  | 'non-protocol';

/** The outcome of negotiating one request. */
export type Negotiation =
  | { readonly kind: 'serve'; readonly major: ProtocolMajor }
  | { readonly kind: 'non-protocol' }
  | {
      readonly kind: 'refuse';
      readonly status: 400 | 406;
      readonly code: 'protocol_version_mismatch' | 'protocol_version_unsupported';
      readonly message: string;
      readonly details: Record<string, unknown>;
      /** The contract the refusal is answered under (its `OpenWOP-Version`). */
      readonly major: ProtocolMajor;
    };

/** Negotiates the major of a request in `space` carrying `header` (the raw `OpenWOP-Version`). */
export function negotiate(space: PathSpace, header: string | readonly string[] | undefined): Negotiation {
  if (space === 'non-protocol') return { kind: 'non-protocol' };
  const major = majorOfHeader(header);
  if (space === 'v1') {
    if (major === undefined || major === 1) return { kind: 'serve', major: 1 };
    return {
      kind: 'refuse',
      status: 400,
      code: 'protocol_version_mismatch',
      message: `A /v1/ path is served under major 1 only; OpenWOP-Version names ${String(header)}. Use the unversioned path for major 2.`,
      details: { protocolVersions: [...PROTOCOL_VERSIONS], pathMajor: 1 },
      major: 1,
    };
  }
  if (major === undefined) return { kind: 'serve', major: space === 'discovery' ? preferredMajor() : 2 };
  if (major !== null && SERVED_MAJORS.has(major)) return { kind: 'serve', major: major as ProtocolMajor };
  return {
    kind: 'refuse',
    status: 406,
    code: 'protocol_version_unsupported',
    message: `OpenWOP-Version ${String(header)} names no major this host serves (${PROTOCOL_VERSIONS.join(', ')}).`,
    details: { protocolVersions: [...PROTOCOL_VERSIONS] },
    major: 2,
  };
}

function preferredMajor(): ProtocolMajor {
  return Number(PREFERRED_VERSION.split('.')[0]) as ProtocolMajor;
}

/**
 * The path space of `path` given the gateway's route table: `v1Roots` are the first segments of
 * the protocol routes under `/v1/` (`runs`, `interrupts`, …, each cut at its first `/` or `:`),
 * `nonProtocolRoots` those of the unversioned routes that name no protocol operation (`healthz`,
 * `docs`, …). An unversioned path under a v1 root is that route's v2 twin; any other unversioned
 * path is still the v2 surface (an operation we do not offer: `404 not_found` under major 2).
 */
export function pathSpaceOf(
  path: string,
  v1Roots: ReadonlySet<string>,
  nonProtocolRoots: ReadonlySet<string>,
): PathSpace {
  if (path === '/v1' || path.startsWith('/v1/')) return 'v1';
  if (path === '/.well-known/openwop') return 'discovery';
  const root = rootSegmentOf(path);
  if (nonProtocolRoots.has(root) && !v1Roots.has(root)) return 'non-protocol';
  return 'unversioned';
}

/** The first segment of `path`, cut at `/` or at an AIP-136 `:verb` (`/runs:bulk-cancel` → `runs`). */
export function rootSegmentOf(path: string): string {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  const end = rest.search(/[/:]/);
  return end === -1 ? rest : rest.slice(0, end);
}
