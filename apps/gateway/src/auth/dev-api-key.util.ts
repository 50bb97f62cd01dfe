import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ApiKeyConfigEntry } from './api-key.config';
import { HOST_SCOPES, SCOPES } from './scopes.constants';

/** Environment variable that overrides where the embedded mode writes its development key. */
export const DEV_API_KEY_FILE_ENV = 'WOP_DEV_API_KEY_FILE';

/** A fresh development key with every scope of the vocabulary, in tenant `default`. */
export function createDevApiKey(): ApiKeyConfigEntry {
  return {
    key: `wop_dev_${randomBytes(24).toString('base64url')}`,
    scopes: [...SCOPES, ...HOST_SCOPES],
    tenant: 'default',
    id: 'dev',
    principal: 'dev',
  };
}

/**
 * Where the development key is written: `$WOP_DEV_API_KEY_FILE`, else
 * `<repo>/.infra/embedded/dev-api-key` for the nearest ancestor of `cwd` holding `nx.json`,
 * else the same path under `cwd`.
 */
export function devApiKeyFile(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const override = env[DEV_API_KEY_FILE_ENV];
  if (override) return resolve(cwd, override);
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, 'nx.json'))) return join(dir, '.infra', 'embedded', 'dev-api-key');
    const parent = dirname(dir);
    if (parent === dir) return join(resolve(cwd), '.infra', 'embedded', 'dev-api-key');
    dir = parent;
  }
}

/** Writes `key` to `file` readable by the owner only (0600), creating folders as needed. */
export function writeDevApiKey(file: string, key: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
