import { ApiKeyConfigError, parseApiKeysConfig } from './api-key.config';

const KEY = 'k'.repeat(32);

describe('parseApiKeysConfig', () => {
  it('reads {key, scopes, tenant, principal?, id?} entries', () => {
    const raw = JSON.stringify([
      { key: KEY, scopes: ['runs:read'], tenant: 'acme' },
      { key: 'x'.repeat(20), scopes: [], tenant: 'beta', principal: 'svc-1', id: 'ci' },
    ]);
    expect(parseApiKeysConfig(raw)).toEqual([
      { key: KEY, scopes: ['runs:read'], tenant: 'acme' },
      { key: 'x'.repeat(20), scopes: [], tenant: 'beta', principal: 'svc-1', id: 'ci' },
    ]);
  });

  it('reads groups (deduplicated); an empty list is the same as none', () => {
    const raw = JSON.stringify([
      { key: KEY, scopes: [], tenant: 'acme', principal: 'alice', groups: ['finance', 'ops', 'finance'] },
      { key: 'x'.repeat(20), scopes: [], tenant: 'acme', groups: [] },
    ]);
    expect(parseApiKeysConfig(raw)).toEqual([
      { key: KEY, scopes: [], tenant: 'acme', principal: 'alice', groups: ['finance', 'ops'] },
      { key: 'x'.repeat(20), scopes: [], tenant: 'acme' },
    ]);
  });

  it('reads roles (deduplicated) beside groups; an empty list is the same as none', () => {
    const raw = JSON.stringify([
      { key: KEY, scopes: [], tenant: 'acme', principal: 'erin', roles: ['controller', 'controller'] },
      { key: 'x'.repeat(20), scopes: [], tenant: 'acme', groups: ['finance'], roles: [] },
    ]);
    expect(parseApiKeysConfig(raw)).toEqual([
      { key: KEY, scopes: [], tenant: 'acme', principal: 'erin', roles: ['controller'] },
      { key: 'x'.repeat(20), scopes: [], tenant: 'acme', groups: ['finance'] },
    ]);
  });

  it('treats an unset or blank variable as no keys', () => {
    expect(parseApiKeysConfig(undefined)).toEqual([]);
    expect(parseApiKeysConfig('  ')).toEqual([]);
  });

  it.each([
    ['malformed JSON', '[{"key": ', /not valid JSON/],
    ['a non-array', '{"key":"x"}', /must be a JSON array/],
    ['a non-object entry', '["abc"]', /entry 0 must be an object/],
    ['a missing key', JSON.stringify([{ scopes: [], tenant: 't' }]), /entry 0: "key"/],
    ['a short key', JSON.stringify([{ key: 'short', scopes: [], tenant: 't' }]), /at least 8 characters/],
    [
      'a key with whitespace',
      JSON.stringify([{ key: 'has a space inside', scopes: [], tenant: 't' }]),
      /whitespace/,
    ],
    ['scopes that are not strings', JSON.stringify([{ key: KEY, scopes: [1], tenant: 't' }]), /"scopes"/],
    ['a missing tenant', JSON.stringify([{ key: KEY, scopes: [] }]), /"tenant"/],
    [
      'an empty principal',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', principal: '' }]),
      /"principal"/,
    ],
    [
      'groups that are not an array',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', groups: 'finance' }]),
      /"groups" must be an array/,
    ],
    [
      'an empty group name',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', groups: [''] }]),
      /"groups" must be an array/,
    ],
    [
      'a group name with whitespace',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', groups: ['fin ance'] }]),
      /without whitespace/,
    ],
    [
      'a group name with its prefix',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', groups: ['group:finance'] }]),
      /write "finance"/,
    ],
    [
      'roles that are not an array',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', roles: 'controller' }]),
      /"roles" must be an array/,
    ],
    [
      'a role name with its prefix',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', roles: ['role:controller'] }]),
      /"roles" names each without its "role:" prefix \(write "controller"\)/,
    ],
    [
      'an unknown field',
      JSON.stringify([{ key: KEY, scopes: [], tenant: 't', role: 'admin' }]),
      /unknown field\(s\) role/,
    ],
    [
      'a repeated key',
      JSON.stringify([
        { key: KEY, scopes: [], tenant: 'a' },
        { key: KEY, scopes: [], tenant: 'b' },
      ]),
      /entry 1 repeats the key/,
    ],
    [
      'a repeated id',
      JSON.stringify([
        { key: KEY, scopes: [], tenant: 'a', id: 'x' },
        { key: 'y'.repeat(9), scopes: [], tenant: 'b', id: 'x' },
      ]),
      /repeats id x/,
    ],
  ])('refuses %s with a clear startup error', (_what, raw, message) => {
    expect(() => parseApiKeysConfig(raw)).toThrow(ApiKeyConfigError);
    expect(() => parseApiKeysConfig(raw)).toThrow(message);
  });

  it('never puts a key value in its error messages', () => {
    const secret = 'super-secret-value-123';
    const attempts = [
      JSON.stringify([{ key: secret, scopes: [], tenant: '' }]),
      JSON.stringify([
        { key: secret, scopes: [], tenant: 'a' },
        { key: secret, scopes: [], tenant: 'b' },
      ]),
      `[{"key": "${secret}"`,
    ];
    for (const raw of attempts) {
      try {
        parseApiKeysConfig(raw);
        throw new Error('expected a failure');
      } catch (error) {
        expect((error as Error).message).toMatch(/^WOP_API_KEYS: /);
        expect((error as Error).message).not.toContain(secret);
      }
    }
  });
});
