import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as NodeCrypto from 'node:crypto';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiKeyConfigError } from './api-key.config';
import { createApiKeyRegistry } from './api-key-registry.factory';
import { ApiKeyRegistry } from './api-key.registry';

jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof NodeCrypto>('node:crypto');
  return { ...actual, timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

const A = 'key-a-' + 'a'.repeat(26);
const B = 'key-b-' + 'b'.repeat(26);
const C = 'key-c-' + 'c'.repeat(26);

function registry(): ApiKeyRegistry {
  return new ApiKeyRegistry([
    { key: A, scopes: ['runs:read', 'runs:create'], tenant: 't1', id: 'key-a' },
    { key: B, scopes: ['runs:read'], tenant: 't2', principal: 'svc-b' },
    { key: C, scopes: [], tenant: 't1', id: 'key-c', principal: 'user-c' },
  ]);
}

describe('ApiKeyRegistry', () => {
  it('returns the caller of a configured key', () => {
    const caller = registry().verify(A);
    expect(caller).toEqual({
      keyId: 'key-a',
      tenant: 't1',
      principal: 'key-a',
      scopes: new Set(['runs:read', 'runs:create']),
    });
    expect(Object.keys(caller!)).not.toContain('hash');
  });

  it('derives a key id from the hash when none is configured, and uses it as principal only by default', () => {
    const b = registry().verify(B)!;
    expect(b.keyId).toMatch(/^key-[0-9a-f]{12}$/);
    expect(b.keyId).toBe(`key-${createHash('sha256').update(B).digest('hex').slice(0, 12)}`);
    expect(b.principal).toBe('svc-b');
    expect(registry().verify(C)!.principal).toBe('user-c');
  });

  it("gives a principal's every key the union of the groups its keys name in that tenant, and no group to anyone else", () => {
    const D = 'key-d-' + 'd'.repeat(26);
    const E = 'key-e-' + 'e'.repeat(26);
    const F = 'key-f-' + 'f'.repeat(26);
    const r = new ApiKeyRegistry([
      { key: D, scopes: [], tenant: 't1', principal: 'alice', groups: ['finance'] },
      { key: E, scopes: [], tenant: 't1', principal: 'alice', groups: ['ops', 'finance'] },
      { key: F, scopes: [], tenant: 't2', principal: 'alice' },
    ]);
    expect(r.verify(D)!.groups).toEqual(['finance', 'ops']);
    expect(r.verify(E)!.groups).toEqual(['finance', 'ops']);
    // The same principal name in another tenant is another principal.
    expect(r.verify(F)!.groups).toBeUndefined();
    expect(r.groupsOf('t1', 'alice')).toEqual(['finance', 'ops']);
    expect(r.groupsOf('t2', 'alice')).toEqual([]);
    expect(r.groupsOf('t1', 'bob')).toEqual([]);
  });

  it("gives a principal's every key the union of the roles its keys name in that tenant (RFC 0104 role refs)", () => {
    const D = 'key-d-' + 'd'.repeat(26);
    const E = 'key-e-' + 'e'.repeat(26);
    const F = 'key-f-' + 'f'.repeat(26);
    const r = new ApiKeyRegistry([
      { key: D, scopes: [], tenant: 't1', principal: 'erin', roles: ['controller'] },
      { key: E, scopes: [], tenant: 't1', principal: 'erin', groups: ['finance'], roles: ['auditor'] },
      { key: F, scopes: [], tenant: 't2', principal: 'erin' },
    ]);
    expect(r.verify(D)).toMatchObject({ groups: ['finance'], roles: ['auditor', 'controller'] });
    expect(r.verify(E)!.roles).toEqual(['auditor', 'controller']);
    expect(r.verify(F)!.roles).toBeUndefined();
    expect(r.rolesOf('t1', 'erin')).toEqual(['auditor', 'controller']);
    expect(r.rolesOf('t1', 'bob')).toEqual([]);
  });

  it('rejects unknown keys, prefixes and near misses', () => {
    const r = registry();
    for (const presented of ['', 'nope', A.slice(0, -1), `${A}x`, A.toUpperCase()])
      expect(r.verify(presented)).toBeUndefined();
  });

  it('compares the presented hash with every stored hash in constant time, match or not', () => {
    const spy = jest.mocked(timingSafeEqual);
    const r = registry();
    spy.mockClear();
    r.verify(A);
    expect(spy).toHaveBeenCalledTimes(3);
    spy.mockClear();
    r.verify('unknown-key-value');
    expect(spy).toHaveBeenCalledTimes(3);
    for (const [stored, presented] of spy.mock.calls) {
      expect((stored as Buffer).length).toBe(32);
      expect((presented as Buffer).length).toBe(32);
    }
  });
});

describe('createApiKeyRegistry', () => {
  const quiet = { log: jest.fn(), warn: jest.fn() };
  beforeEach(() => jest.clearAllMocks());

  it('uses the configured keys and never logs them', () => {
    const env = { WOP_API_KEYS: JSON.stringify([{ key: A, scopes: ['runs:read'], tenant: 't1' }]) };
    const r = createApiKeyRegistry({ mode: 'distributed' }, env, quiet);
    expect(r.size).toBe(1);
    expect(r.verify(A)?.tenant).toBe('t1');
    expect(JSON.stringify([quiet.log.mock.calls, quiet.warn.mock.calls])).not.toContain(A);
  });

  it('fails fast in distributed mode without keys', () => {
    expect(() => createApiKeyRegistry({ mode: 'distributed' }, {}, quiet)).toThrow(ApiKeyConfigError);
    expect(() => createApiKeyRegistry({ mode: 'distributed' }, {}, quiet)).toThrow(/no API keys configured/);
  });

  it('embedded without keys refuses to start when the dev key cannot be kept (a key kept nowhere locks everyone out)', () => {
    // A regular file where a folder must be: the key file beneath it cannot be created.
    const blocker = join(mkdtempSync(join(tmpdir(), 'dev-key-')), 'not-a-folder');
    writeFileSync(blocker, '');
    const env = { WOP_DEV_API_KEY_FILE: join(blocker, 'dev-api-key') };
    expect(() => createApiKeyRegistry({ mode: 'embedded' }, env, quiet)).toThrow(
      /development key cannot be kept in .*WOP_DEV_API_KEY_FILE/,
    );
    expect(JSON.stringify([quiet.log.mock.calls, quiet.warn.mock.calls])).not.toMatch(/wop_dev_/);
  });

  it('fails fast on a malformed variable, in either mode', () => {
    for (const mode of ['embedded', 'distributed'] as const) {
      expect(() => createApiKeyRegistry({ mode }, { WOP_API_KEYS: 'not json' }, quiet)).toThrow(
        /WOP_API_KEYS: not valid JSON/,
      );
    }
  });
});
