import { SCOPES } from '../auth/scopes.constants';
import { AUTH_SCOPED_DISCOVERY, scopedDiscoveryDocument } from './discovery-scope';
import { buildDiscoveryDocument } from './discovery.document';

/** Every optional capability a view shows: root keys and `extensions.*` keys (RFC 0011 §B assertion 5). */
const capabilities = (doc: Record<string, unknown>): string[] => [
  ...Object.keys(doc),
  ...Object.keys(doc.extensions as object).map((k) => `extensions.${k}`),
  ...Object.keys((doc.extensions as { limits: object }).limits).map((k) => `extensions.limits.${k}`),
];

describe('auth-scoped discovery (RFC 0011, same-endpoint)', () => {
  const doc = { ...buildDiscoveryDocument(), discovery: AUTH_SCOPED_DISCOVERY };
  const view = (...scopes: string[]) => scopedDiscoveryDocument(doc, new Set(scopes));

  it('a key holding every scope sees the public document', () => {
    expect(view(...SCOPES, 'manifest:write')).toEqual(doc);
  });

  it('a read-only key keeps the required fields but learns nothing of webhooks, audit, fork, pause, cancel or creation', () => {
    const ro = view('runs:read', 'manifest:read');
    for (const field of [
      'protocolVersion',
      'supportedEnvelopes',
      'schemaVersions',
      'limits',
      'auth',
      'discovery',
    ])
      expect(ro[field]).toEqual(doc[field as keyof typeof doc]);
    for (const hidden of ['webhooks', 'replay', 'runs', 'fixtures']) expect(ro).not.toHaveProperty(hidden);
    const ext = ro.extensions as Record<string, unknown>;
    for (const hidden of ['webhooks', 'audit', 'bulkCancel', 'bulkDecisions'])
      expect(ext).not.toHaveProperty(hidden);
    expect(ext.limits).not.toHaveProperty('maxWebhookSubscriptionsPerTenant');
    // It still reads runs and their streams.
    expect(ro).toHaveProperty('streamModes');
    const paths = (ro.endpoints as { path: string; scope?: string }[]).map((e) => e.scope ?? '');
    expect(new Set(paths)).toEqual(new Set(['', 'runs:read', 'manifest:read']));
  });

  it('a key with fewer scopes never shows a capability a key with more lacks', () => {
    const sets = [
      [],
      ['runs:read'],
      ['runs:read', 'runs:create'],
      ['webhooks:manage'],
      ['audit:read', 'runs:read'],
    ];
    for (const fewer of sets) {
      const more = [...fewer, 'approvals:respond', 'runs:cancel'];
      const extra = capabilities(view(...fewer)).filter((c) => !capabilities(view(...more)).includes(c));
      expect(extra).toEqual([]);
    }
  });

  it('webhooks:manage alone shows the webhook family and its limit', () => {
    const wh = view('webhooks:manage');
    expect(wh.webhooks).toEqual((doc as Record<string, unknown>).webhooks);
    expect((wh.extensions as { webhooks?: unknown }).webhooks).toBeDefined();
    expect((wh.extensions as { limits: object }).limits).toHaveProperty('maxWebhookSubscriptionsPerTenant');
    expect(wh).not.toHaveProperty('replay');
  });
});
