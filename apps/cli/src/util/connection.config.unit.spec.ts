import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionOf, DEFAULT_URL, DEV_KEY_FILE } from './connection.config';

describe('connectionOf', () => {
  const root = mkdtempSync(join(tmpdir(), 'wop-conn-'));
  mkdirSync(join(root, '.infra/embedded'), { recursive: true });
  writeFileSync(join(root, DEV_KEY_FILE), 'dev_key_from_file\n');
  const nested = join(root, 'apps/x');
  mkdirSync(nested, { recursive: true });

  it('prefers --url and --api-key, then WOP_URL and WOP_API_KEY', () => {
    const env = { WOP_URL: 'http://env:1', WOP_API_KEY: 'env_key' };
    expect(connectionOf({ url: 'http://flag:2', apiKey: 'flag_key' }, env, nested)).toEqual({
      url: 'http://flag:2',
      apiKey: 'flag_key',
      keySource: '--api-key',
    });
    expect(connectionOf({}, env, nested)).toEqual({
      url: 'http://env:1',
      apiKey: 'env_key',
      keySource: 'WOP_API_KEY',
    });
  });

  it('falls back to the default URL and the embedded host key file of the closest parent folder', () => {
    expect(connectionOf({}, {}, nested)).toEqual({
      url: DEFAULT_URL,
      apiKey: 'dev_key_from_file',
      keySource: join(root, DEV_KEY_FILE),
    });
    expect(connectionOf({}, {}, mkdtempSync(join(tmpdir(), 'wop-none-')))).toEqual({
      url: DEFAULT_URL,
      keySource: 'none',
    });
  });
});
