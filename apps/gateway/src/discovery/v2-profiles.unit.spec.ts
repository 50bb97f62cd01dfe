import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildV2DiscoveryDocument } from './discovery-v2.document';
import { advertisedV2Families, claimedV2Profiles, V2_PROFILES } from './v2-profiles';

// docs/conformance.md "v2 verdict by family and profile" states which v2 families this host
// advertises and which profiles that claims; the v2 discovery document must say exactly that
// (RFC 0148: what is advertised must be observable, and what the docs promise must be advertised).

interface VerdictRow {
  readonly name: string;
  readonly kind: 'family' | 'profile';
  readonly onRoot: boolean;
}

function verdictTable(): VerdictRow[] {
  const doc = readFileSync(resolve(__dirname, '../../../../docs/conformance.md'), 'utf8');
  const begin = doc.indexOf('<!-- v2-verdict:begin -->');
  const end = doc.indexOf('<!-- v2-verdict:end -->');
  expect([begin, end].every((i) => i >= 0) && begin < end).toBe(true);
  return doc
    .slice(begin, end)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name, kind, onRoot] = line
        .split('|')
        .slice(1, 4)
        .map((cell) => cell.trim().replace(/`/g, ''));
      expect(['family', 'profile']).toContain(kind);
      expect(['yes', 'no']).toContain(onRoot);
      return { name: name!, kind: kind as VerdictRow['kind'], onRoot: onRoot === 'yes' };
    });
}

describe('the v2 verdict table and the v2 discovery document', () => {
  const rows = verdictTable();
  const document = buildV2DiscoveryDocument();
  const listed = (kind: VerdictRow['kind'], onRoot?: boolean) =>
    rows
      .filter((r) => r.kind === kind && (onRoot === undefined || r.onRoot === onRoot))
      .map((r) => r.name)
      .sort();

  it('lists every family of every v2 profile, and every family the document advertises', () => {
    const predicateFamilies = V2_PROFILES.flatMap((p) => p.families);
    expect(listed('family')).toEqual(expect.arrayContaining(predicateFamilies));
    expect(listed('family')).toEqual(expect.arrayContaining(advertisedV2Families(document)));
  });

  it('says "yes" for exactly the families the document advertises', () => {
    expect(advertisedV2Families(document)).toEqual(listed('family', true));
  });

  it('lists every v2 profile, and says "yes" for exactly the profiles the document claims', () => {
    expect(listed('profile')).toEqual(V2_PROFILES.map((p) => p.id).sort());
    expect(claimedV2Profiles(document).sort()).toEqual(listed('profile', true));
  });

  it('derives claims from the predicates: discovery-core today, core-standard only with all five families', () => {
    expect(claimedV2Profiles(document)).toEqual(['openwop-discovery-core']);
    const record = { status: 'stable', since: '2.0', witness: 'witnessable-gated' };
    const withAll = {
      ...document,
      replay: record,
      webhooks: record,
      idempotency: record,
      eventLog: record,
    };
    expect(claimedV2Profiles(withAll)).toEqual(['openwop-discovery-core', 'openwop-core-standard']);
    const { webhooks: _w, ...withoutWebhooks } = withAll;
    expect(claimedV2Profiles(withoutWebhooks)).toEqual(['openwop-discovery-core']);
    expect(claimedV2Profiles({ ...document, conformance: {} })).toContain('openwop-conformance-seams-v2');
  });
});
