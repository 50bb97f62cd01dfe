import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ApiKeyConfigEntry } from './api-key.config';
import { HOST_SCOPES, SCOPES } from './scopes.constants';

/** Environment variable that overrides where the embedded mode writes its development key. */
export const DEV_API_KEY_FILE_ENV = 'WOP_DEV_API_KEY_FILE';

/** The shape of a development key: `wop_dev_` and 24 random bytes in base64url. */
const DEV_KEY_PATTERN = /^wop_dev_[A-Za-z0-9_-]{32}$/;

/** The development key with every scope of the vocabulary, in tenant `default`: `key`, or a fresh one. */
export function createDevApiKey(
  key: string = `wop_dev_${randomBytes(24).toString('base64url')}`,
): ApiKeyConfigEntry {
  return {
    key,
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

/** The development key kept in `file` by an earlier start, if the file holds one. */
export function readDevApiKey(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  return DEV_KEY_PATTERN.test(text) ? text : undefined;
}
