import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectionOf,
  DEFAULT_URL,
  DEV_KEY_FILE,
  keyHint,
  STACK_GATEWAYS_FILE,
  STACK_KEY_FILE,
} from './connection.config';

describe('connectionOf', () => {
  const root = mkdtempSync(join(tmpdir(), 'wop-conn-'));
  mkdirSync(join(root, '.infra/embedded'), { recursive: true });
  writeFileSync(join(root, DEV_KEY_FILE), 'dev_key_from_file\n');
  const nested = join(root, 'apps/x');
  mkdirSync(nested, { recursive: true });

  it('prefers --url and --api-key, then WOP_URL and WOP_API_KEY', () => {
    const env = { WOP_URL: 'http://env:1', WOP_API_KEY: 'env_key' };
    expect(connectionOf({ url: 'http://flag:2', apiKey: 'flag_key' }, env, nested)).toMatchObject({
      url: 'http://flag:2',
      apiKey: 'flag_key',
      keySource: '--api-key',
    });
    expect(connectionOf({}, env, nested)).toMatchObject({
      url: 'http://env:1',
      apiKey: 'env_key',
      keySource: 'WOP_API_KEY',
    });
  });

  it('falls back to the default URL and the embedded host key file of the closest parent folder', () => {
    expect(connectionOf({}, {}, nested)).toMatchObject({
      url: DEFAULT_URL,
      apiKey: 'dev_key_from_file',
      keySource: join(root, DEV_KEY_FILE),
    });
    const elsewhere = mkdtempSync(join(tmpdir(), 'wop-none-'));
    const none = connectionOf({}, {}, elsewhere);
    expect(none).toMatchObject({ url: DEFAULT_URL, keySource: 'none' });
    expect(none).not.toHaveProperty('apiKey');
    expect(none.looked).toEqual([
      '--api-key',
      'WOP_API_KEY',
      `${DEV_KEY_FILE} in ${elsewhere} or a parent folder (not found)`,
    ]);
  });

  it('takes the stack key when the URL is one of the gateways stack:up listed, else the embedded key', () => {
    const repo = mkdtempSync(join(tmpdir(), 'wop-stack-'));
    mkdirSync(join(repo, '.infra/embedded'), { recursive: true });
    mkdirSync(join(repo, '.infra/stack'), { recursive: true });
    writeFileSync(join(repo, DEV_KEY_FILE), 'dev_key\n');
    writeFileSync(join(repo, STACK_KEY_FILE), 'stack_key');
    writeFileSync(join(repo, STACK_GATEWAYS_FILE), 'http://127.0.0.1:8080\nhttp://127.0.0.1:8081\n');
    expect(connectionOf({}, {}, repo)).toMatchObject({
      apiKey: 'stack_key',
      keySource: join(repo, STACK_KEY_FILE),
    });
    expect(connectionOf({ url: 'http://localhost:8081/' }, {}, join(repo, '.infra'))).toMatchObject({
      apiKey: 'stack_key',
    });
    expect(connectionOf({ url: 'http://127.0.0.1:9000' }, {}, repo)).toMatchObject({
      apiKey: 'dev_key',
      keySource: join(repo, DEV_KEY_FILE),
    });
    expect(connectionOf({}, { WOP_API_KEY: 'env_key' }, repo)).toMatchObject({ apiKey: 'env_key' });
  });
});

describe('keyHint', () => {
  it('names the key source used, or every place looked, and where each host keeps its key', () => {
    const used = keyHint({
      url: DEFAULT_URL,
      apiKey: 'k',
      keySource: '/r/.infra/embedded/dev-api-key',
      looked: [],
    });
    expect(used).toContain('wop sent the API key from /r/.infra/embedded/dev-api-key');
    expect(used).toContain(STACK_KEY_FILE);
    expect(used).toContain('--api-key or WOP_API_KEY');
    const none = keyHint({
      url: DEFAULT_URL,
      keySource: 'none',
      looked: [
        '--api-key',
        'WOP_API_KEY',
        '.infra/embedded/dev-api-key in /tmp/x or a parent folder (not found)',
      ],
    });
    expect(none).toContain(
      'wop sent no API key (it looked at: --api-key; WOP_API_KEY; .infra/embedded/dev-api-key in /tmp/x or a parent folder (not found))',
    );
  });
});
