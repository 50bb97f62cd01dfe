import { V2_METADATA_KEYS } from './discovery-v2.document';

/**
 * The v2 conformance profiles (`spec/v2/profiles.json`, generated from `spec/v2/declaration.json`,
 * RFC 0169 §C.1; copy at openwop/openwop@0f13b519): a profile is a predicate over the discovery
 * document — every listed family present as a record and every listed metadata key present. No
 * `profiles[]` is on the wire; a client derives the claims from the document, as
 * {@link claimedV2Profiles} does.
 */
export const V2_PROFILES: readonly {
  readonly id: string;
  readonly families: readonly string[];
  readonly metadata: readonly string[];
}[] = [
  { id: 'openwop-discovery-core', families: [], metadata: ['protocolVersions', 'preferredVersion'] },
  {
    id: 'openwop-core-standard',
    families: ['interrupt', 'replay', 'webhooks', 'idempotency', 'eventLog'],
    metadata: [],
  },
  { id: 'openwop-conformance-seams-v2', families: [], metadata: ['conformance'] },
];

/** The capability families (capabilities.md §5) a v2 root advertises: its keys that are not metadata. */
export function advertisedV2Families(document: Record<string, unknown>): string[] {
  return Object.keys(document)
    .filter((k) => !V2_METADATA_KEYS.includes(k))
    .sort();
}

/** The profiles a v2 root claims: those whose predicate it satisfies. */
export function claimedV2Profiles(document: Record<string, unknown>): string[] {
  const families = new Set(advertisedV2Families(document));
  return V2_PROFILES.filter(
    (p) => p.families.every((f) => families.has(f)) && p.metadata.every((m) => m in document),
  ).map((p) => p.id);
}
