import { INTERRUPT_TOKEN_ALGS } from '@openwop/contracts';
import { GATEWAY_ROUTES } from '../discovery/gateway-routes.constants';
import {
  buildV2DiscoveryDocument,
  V2_METADATA_KEYS,
  V2_TOKEN_PARAMETER,
  v2Routes,
} from '../discovery/discovery-v2.document';
import type { ApiError } from './api.error';
import { errorCodeUnder, ERROR_STATUS } from './error-status.table';
import { pathRootsOf } from './protocol-negotiation.middleware';
import {
  majorOfHeader,
  negotiate,
  pathSpaceOf,
  PREFERRED_VERSION,
  PROTOCOL_VERSIONS,
} from './protocol-version';
import { resolveBodyOf } from './resolve-body';

const ROOTS = pathRootsOf(GATEWAY_ROUTES);
const space = (path: string) => pathSpaceOf(path, ROOTS.v1, ROOTS.nonProtocol);

describe('major negotiation (versioning.md §1.3, ADR 0041)', () => {
  it('reads <major> and <major>.<minor>; anything else names no major', () => {
    expect(majorOfHeader(undefined)).toBeUndefined();
    expect(majorOfHeader('2')).toBe(2);
    expect(majorOfHeader('2.0')).toBe(2);
    expect(majorOfHeader(' 1.7 ')).toBe(1);
    for (const bad of ['', 'v2', '2.x', '02', '2.0.1', 'two', '2,1']) expect(majorOfHeader(bad)).toBeNull();
  });

  it('advertises ["1.<n>", "2.<m>"] with a 1.x preferredVersion through the overlap', () => {
    expect(PROTOCOL_VERSIONS).toHaveLength(2);
    for (const v of PROTOCOL_VERSIONS) expect(v).toMatch(/^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/);
    expect(PROTOCOL_VERSIONS.map((v) => v.split('.')[0])).toEqual(['1', '2']);
    expect(PREFERRED_VERSION.startsWith('1.')).toBe(true);
    expect(PROTOCOL_VERSIONS).toContain(PREFERRED_VERSION);
  });

  it('/v1/… is major 1; a header naming another major is 400 protocol_version_mismatch', () => {
    expect(negotiate('v1', undefined)).toEqual({ kind: 'serve', major: 1 });
    expect(negotiate('v1', '1')).toEqual({ kind: 'serve', major: 1 });
    expect(negotiate('v1', '1.0')).toEqual({ kind: 'serve', major: 1 });
    for (const other of ['2', '2.0', '3', 'junk']) {
      expect(negotiate('v1', other)).toMatchObject({
        kind: 'refuse',
        status: 400,
        code: 'protocol_version_mismatch',
      });
    }
  });

  it('an unversioned path is major 2 without a header, and serves any listed major it names', () => {
    expect(negotiate('unversioned', undefined)).toEqual({ kind: 'serve', major: 2 });
    expect(negotiate('unversioned', '2')).toEqual({ kind: 'serve', major: 2 });
    expect(negotiate('unversioned', '2.99')).toEqual({ kind: 'serve', major: 2 });
    expect(negotiate('unversioned', '1')).toEqual({ kind: 'serve', major: 1 });
  });

  it('discovery is the preferred (1.x) representation without a header', () => {
    expect(negotiate('discovery', undefined)).toEqual({ kind: 'serve', major: 1 });
    expect(negotiate('discovery', '2')).toEqual({ kind: 'serve', major: 2 });
  });

  it('an unlisted major is 406 protocol_version_unsupported echoing protocolVersions', () => {
    for (const s of ['unversioned', 'discovery'] as const) {
      for (const value of ['3', '0', '9.1', 'x']) {
        expect(negotiate(s, value)).toMatchObject({
          kind: 'refuse',
          status: 406,
          code: 'protocol_version_unsupported',
          details: { protocolVersions: [...PROTOCOL_VERSIONS] },
        });
      }
    }
    expect(ERROR_STATUS.protocol_version_unsupported).toBe(406);
    expect(ERROR_STATUS.protocol_version_mismatch).toBe(400);
  });

  it('health, metrics, pages and assets have no major; every /v1 root has its unversioned twin', () => {
    for (const p of [
      '/healthz',
      '/readyz',
      '/metrics',
      '/admin',
      '/admin/assets/x.js',
      '/docs',
      '/link/assets/a.css',
    ])
      expect(space(p)).toBe('non-protocol');
    expect(negotiate('non-protocol', '3')).toEqual({ kind: 'non-protocol' });
    expect(space('/.well-known/openwop')).toBe('discovery');
    expect(space('/v1/runs')).toBe('v1');
    for (const p of [
      '/runs',
      '/runs/r1/events/poll',
      '/runs:bulk-cancel',
      '/runs/r1:fork',
      '/interrupts/tok',
      '/webhooks',
      '/workflows/w',
      '/openapi.json',
      '/nope',
      '/',
    ]) {
      expect(space(p)).toBe('unversioned');
    }
  });

  // The v2 path manifest's operations this host serves under /v1 (openwop/openwop@02c7b491 spec/v2/path-manifest.json).
  it.each([
    ['GET', '/runs'],
    ['POST', '/runs'],
    ['GET', '/runs/{runId}'],
    ['POST', '/runs/{runId}/cancel'],
    ['GET', '/runs/{runId}/events'],
    ['GET', '/runs/{runId}/events/poll'],
    ['POST', '/runs/{runId}/interrupts/{nodeId}'],
    ['POST', '/runs/{runId}:fork'],
    ['POST', '/runs/{runId}:pause'],
    ['POST', '/runs/{runId}:resume'],
    ['POST', '/runs:bulk-cancel'],
    ['GET', '/interrupts/{token}'],
    ['POST', '/interrupts/{token}'],
    ['GET', '/openapi.json'],
    ['POST', '/webhooks'],
    ['DELETE', '/webhooks/{webhookId}'],
    ['GET', '/workflows/{workflowId}'],
    ['GET', '/.well-known/openwop'],
  ])('%s %s, served under /v1, is served under major 2 on its unversioned path', (method, path) => {
    const twins = v2Routes(GATEWAY_ROUTES);
    expect(twins.some((r) => r.method === method && r.path === path)).toBe(true);
    expect(
      GATEWAY_ROUTES.some((r) => r.method === method && (r.path === `/v1${path}` || r.path === path)),
    ).toBe(true);
  });

  it('the token routes under major 2 carry the token grammar and list 401 interrupt_token_invalid (identity.md §4)', () => {
    const tokenRoutes = v2Routes(GATEWAY_ROUTES).filter((r) => r.path.startsWith('/interrupts/{token}'));
    expect(tokenRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /interrupts/{token}',
      'GET /interrupts/{token}/conversation',
      'GET /interrupts/{token}/outcome',
      'POST /interrupts/{token}',
    ]);
    const pattern = new RegExp(String(V2_TOKEN_PARAMETER.schema.pattern));
    for (const route of tokenRoutes) {
      expect(route.errors).toContain('interrupt_token_invalid');
      expect(route.parameters?.find((p) => p.name === 'token')).toBe(V2_TOKEN_PARAMETER);
    }
    for (const good of ['ow2.hs256.k-1.eyJhIjoxfQ.AAAA', 'ow2.hs256.k.1.eyJhIjoxfQ.AAAA', 'eyJhIjoxfQ.AAAA'])
      expect(pattern.test(good)).toBe(true);
    for (const bad of ['ow2.hs256.eyJhIjoxfQ.AAAA.', 'abc', 'a.b.c', 'ow2..k.p.m'])
      expect(pattern.test(bad)).toBe(false);
    // v1 keeps its own answer: no 401 on the /v1 token routes.
    for (const route of GATEWAY_ROUTES.filter((r) => r.path.startsWith('/v1/interrupts/{token}')))
      expect(route.errors ?? []).not.toContain('interrupt_token_invalid');
  });

  it('every /v1 route but the seams has a twin, and no twin is a seam', () => {
    const twins = v2Routes(GATEWAY_ROUTES);
    const v1 = GATEWAY_ROUTES.filter((r) => r.path.startsWith('/v1/') && !r.testSeam);
    expect(twins.filter((r) => r.path !== '/.well-known/openwop')).toHaveLength(v1.length);
    expect(twins.some((r) => r.testSeam)).toBe(false);
  });
});

describe('resolve bodies by major', () => {
  it('major 1 takes {resumeValue} or the value itself', () => {
    expect(resolveBodyOf({ resumeValue: { action: 'approve' } }, 1).resumeValue).toEqual({
      action: 'approve',
    });
    expect(resolveBodyOf({ action: 'approve' }, 1).resumeValue).toEqual({ action: 'approve' });
  });

  it('major 2 takes the closed {resumeValue} only', () => {
    expect(resolveBodyOf({ resumeValue: null }, 2).resumeValue).toBeNull();
    const refused = (body: unknown, extra?: string[]) => {
      try {
        resolveBodyOf(body, 2, extra);
      } catch (e) {
        return e as ApiError;
      }
      throw new Error('not refused');
    };
    expect(refused({ action: 'approve' })).toMatchObject({
      code: 'validation_error',
      details: { errors: [{ path: '/resumeValue' }, { path: '/action' }] },
    });
    expect(refused({ resumeValue: 1, comment: 'x' }).details).toEqual({
      errors: [{ path: '/comment', message: expect.any(String) }],
    });
    expect(refused([1]).code).toBe('validation_error');
    expect(resolveBodyOf({ resumeValue: 1, nodeId: 'n' }, 2, ['nodeId']).fields).toEqual({
      resumeValue: 1,
      nodeId: 'n',
    });
  });
});

describe('error codes by major', () => {
  it('under major 2 a code v2 does not register is answered as its registered twin, the v1 code as details.reason', () => {
    expect(errorCodeUnder(2, 'unavailable', 503)).toEqual({
      code: 'service_unavailable',
      status: 503,
      reason: 'unavailable',
    });
    expect(errorCodeUnder(2, 'interrupt_cancelled', 422)).toEqual({
      code: 'interrupt_already_resolved',
      status: 409,
      reason: 'interrupt_cancelled',
    });
    expect(errorCodeUnder(2, 'not_found', 404)).toEqual({ code: 'not_found', status: 404 });
    expect(errorCodeUnder(1, 'unavailable', 503)).toEqual({ code: 'unavailable', status: 503 });
  });
});

describe('the v2 discovery document', () => {
  it('is a closed root of metadata keys claiming openwop-discovery-core and no family it cannot back', () => {
    const doc = buildV2DiscoveryDocument();
    for (const key of Object.keys(doc)) expect([...V2_METADATA_KEYS, 'interrupt']).toContain(key);
    // The interrupt record's tokenAlgs is the list the token service verifies ow2 tokens against.
    expect(doc.interrupt).toEqual({
      status: 'stable',
      since: '2.0',
      witness: 'witnessable-gated',
      tokenAlgs: [...INTERRUPT_TOKEN_ALGS],
      // What a major-2 interrupt enforces, and nothing it does not (RFC 0148).
      refKinds: ['principal', 'group', 'role'],
      callbackDelivery: true,
    });
    expect(doc).toMatchObject({
      protocolVersions: [...PROTOCOL_VERSIONS],
      preferredVersion: PREFERRED_VERSION,
      protocolVersion: PREFERRED_VERSION,
      eventLogSchemaVersion: 2,
    });
    for (const family of ['replay', 'webhooks', 'idempotency', 'eventLog'])
      expect(doc).not.toHaveProperty(family);
    for (const v1Only of [
      'capabilities',
      'endpoints',
      'supportedTransports',
      'profiles',
      'protocol',
      'specVersion',
    ])
      expect(doc).not.toHaveProperty(v1Only);
  });
});
