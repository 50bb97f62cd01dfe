import { INTERRUPT_TOKEN_ALGS, SEEDED_FIXTURES, V1_EVENT_LOG_SCHEMA_VERSION } from '@openwop/contracts';
import { PREFERRED_VERSION, PROTOCOL_VERSIONS } from '../common/protocol-version';
import type { OAuthProvider } from '../oauth-connect/oauth-providers.config';
import { IMPLEMENTATION } from './discovery.document';
import type { GatewayRoute, RouteParameter } from './gateway-routes.constants';

/**
 * The era key this host writes on every run it creates (`persistence.md` §The era key): `2`, the
 * v1 era. Runs are written in v1 event vocabulary whichever major created them; v2's era `3` (v2
 * vocabulary, the event codemap) is not built, so `3` is not advertised (ADR 0041).
 */
export const EVENT_LOG_ERA = V1_EVENT_LOG_SCHEMA_VERSION;

/**
 * The `interrupt.refKinds` a major-2 run's interrupts enforce (interrupt.md §Approver enforcement):
 * the kinds of entry the interrupt service's `enforcedApprovers` (`@openwop/interrupt-domain`,
 * `ENFORCED_REF_KINDS`) admits by, for a major-2 run.
 */
export const INTERRUPT_REF_KINDS = ['principal', 'group', 'role'] as const;

/**
 * The metadata keys of the closed v2 root (capabilities.md §3.1). The v2 document below uses only
 * these; a capability family (§5) appears only once this host meets that family's v2 contract.
 */
export const V2_METADATA_KEYS: readonly string[] = [
  'protocolVersion',
  'protocolVersions',
  'preferredVersion',
  'extensions',
  'implementation',
  'engineVersion',
  'eventLogSchemaVersion',
  'configurable',
  'observability',
  'minClientVersion',
  'runtimeCapabilities',
  'testing',
  'conformance',
  'fixtures',
  'compliance',
  'discovery',
  'supportedTransports',
];

/** The two version-advertisement fields, on both representations (versioning.md §1.1). */
export function versionAdvertisement(): {
  readonly protocolVersions: string[];
  readonly preferredVersion: string;
} {
  return { protocolVersions: [...PROTOCOL_VERSIONS], preferredVersion: PREFERRED_VERSION };
}

/**
 * `GET /.well-known/openwop` with `OpenWOP-Version: 2`: the closed v2 root (capabilities.md §1, §3).
 * RFC 0148: what is advertised must be observable, so it claims only what this host does under
 * major 2 today (ADR 0041, `docs/conformance.md` §v2):
 * - `protocolVersions` and `preferredVersion` (the `openwop-discovery-core` predicate), with
 *   `protocolVersion` as `preferredVersion`'s twin for v1 readers through the overlap;
 * - `eventLogSchemaVersion`: the era this host writes ({@link EVENT_LOG_ERA});
 * - `implementation` and the seeded `fixtures`;
 * - the `interrupt` record ({@link interruptFamilyRecord}) with `tokenAlgs`: a major-2 run's
 *   tokens are `ow2.` tokens (issue #30 item 2);
 * - the `oauth` record, only where it works ({@link oauthFamilyRecord}).
 * No other capability family: `eventLog` needs the v2 era and codemap, `webhooks` tenant-bound ids,
 * v2 event names and durable-only delivery, `idempotency` Layer 2 and `GET /runs/{runId}/effects`,
 * `replay` the effect-seam manifest, so `openwop-core-standard` is not claimed. The families and
 * the profiles they claim are held equal to `docs/conformance.md` "v2 verdict by family and
 * profile" (`v2-profiles.unit.spec.ts`).
 */
export function buildV2DiscoveryDocument(oauth?: OAuthAdvertisement): Record<string, unknown> {
  const oauthRecord = oauth && oauthFamilyRecord(oauth);
  return {
    protocolVersion: PREFERRED_VERSION,
    ...versionAdvertisement(),
    implementation: { ...IMPLEMENTATION },
    eventLogSchemaVersion: EVENT_LOG_ERA,
    fixtures: SEEDED_FIXTURES.map((f) => f.id),
    interrupt: interruptFamilyRecord(),
    ...(oauthRecord ? { oauth: oauthRecord } : {}),
  };
}

/** What the `oauth` record is built from: the host's public URL and its configured providers. */
export interface OAuthAdvertisement {
  readonly publicUrl: string;
  readonly providers: readonly OAuthProvider[];
}

/**
 * The v2 `oauth` record (v2 `oauth.md`, RFC 0199 §E.1), only when it works: at least one provider
 * is configured (`WOP_OAUTH_PROVIDERS`) and the public URL is https, since a `connectUrl` must be
 * (§C.3). `credentialInterrupt` is present (RFC 0192: a v2 facet is advertised by presence):
 * `core.credential` raises a `credential` interrupt whose grant runs PKCE S256 with a single-use,
 * Subject-bound `state`. Providers carry no client id or secret; `pkce` is absent (always S256).
 */
export function oauthFamilyRecord(oauth: OAuthAdvertisement): Record<string, unknown> | undefined {
  if (oauth.providers.length === 0 || !oauth.publicUrl.startsWith('https://')) return undefined;
  return {
    status: 'stable',
    since: '2.0',
    witness: 'witnessable-gated',
    grants: ['authorization_code'],
    credentialInterrupt: true,
    providers: oauth.providers.map((p) => ({
      id: p.id,
      authUrl: p.authUrl,
      tokenUrl: p.tokenUrl,
      ...(p.scopesSupported.length > 0 ? { scopesSupported: [...p.scopesSupported] } : {}),
      ...(p.issuer !== undefined ? { issuer: p.issuer } : {}),
    })),
  };
}

/**
 * The v2 `interrupt` capability record (capabilities.md §2, §5 `interrupt`). `tokenAlgs` is
 * exactly the list the token service verifies `ow2.` tokens against (`INTERRUPT_TOKEN_ALGS`, one
 * constant for both). `callbackDelivery`: a `callbackUrl` is refused at `createRun` by the webhook
 * registration guard and its notice delivered through the guarded delivery path, no redirect
 * (interrupt.md §Callback delivery; issue #30 item 6). `refKinds`: what a major-2 run's
 * interrupts enforce on every route that writes a decision (API, bulk, link; RFC 0173 §B):
 * `approversList` principals, and RFC 0104's `approverGroupRefs` and `approverRoleRefs` resolved
 * against the groups and roles the key configuration gives the caller (issue #30 item 4).
 */
export function interruptFamilyRecord(): Record<string, unknown> {
  return {
    status: 'stable',
    since: '2.0',
    witness: 'witnessable-gated',
    tokenAlgs: [...INTERRUPT_TOKEN_ALGS],
    refKinds: [...INTERRUPT_REF_KINDS],
    callbackDelivery: true,
  };
}

/**
 * The `{token}` path parameter under major 2 (identity.md §4: the parameter carries the grammar):
 * an `ow2.<alg>.<kid>.<payload>.<mac>` token, or through the overlap a v1 `<payload>.<mac>` token,
 * which still resolves under `kid: legacy` until it expires.
 */
export const V2_TOKEN_PARAMETER: RouteParameter = {
  name: 'token',
  in: 'path',
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: 4096,
    pattern:
      '^(ow2\\.[A-Za-z0-9]+\\.[A-Za-z0-9._~-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+|[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)$',
  },
  description:
    'Signed resume token: `ow2.<alg>.<kid>.<payload>.<mac>` (identity.md §4), or a v1 token (no prefix, `kid: legacy`) until it expires.',
};

/**
 * The operations served under major 2: each `/v1/…` route's unversioned twin (versioning.md §1.2),
 * plus the one discovery resource; a conformance seam has no twin. What `GET /openapi.json` under
 * major 2 describes. The token routes take {@link V2_TOKEN_PARAMETER} and answer a token that does
 * not verify `401 interrupt_token_invalid` (v1 answers it `404`, already listed).
 */
export function v2Routes(routes: readonly GatewayRoute[]): GatewayRoute[] {
  return routes.flatMap((r) => {
    if (r.path === '/.well-known/openwop') return [r];
    if (r.testSeam || !r.path.startsWith('/v1/')) return [];
    const twin = { ...r, path: r.path.slice('/v1'.length) };
    if (!twin.path.startsWith('/interrupts/{token}')) return [twin];
    return [
      {
        ...twin,
        parameters: (twin.parameters ?? []).map((p) => (p.name === 'token' ? V2_TOKEN_PARAMETER : p)),
        errors: [...(twin.errors ?? []), 'interrupt_token_invalid'],
      },
    ];
  });
}
