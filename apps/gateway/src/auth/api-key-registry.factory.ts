import type { HostConfig } from '@openwop/platform-nest';
import { API_KEYS_ENV, ApiKeyConfigError, parseApiKeysConfig } from './api-key.config';
import { ApiKeyRegistry } from './api-key.registry';
import {
  createDevApiKey,
  DEV_API_KEY_FILE_ENV,
  devApiKeyFile,
  readDevApiKey,
  writeDevApiKey,
} from './dev-api-key.util';

/** Where the factory reports what it did; lines never contain a configured key. */
export interface RegistryLog {
  log(line: string): void;
  warn(line: string): void;
}

/**
 * Builds the key registry at startup from `WOP_API_KEYS`. With no keys configured, the embedded
 * mode uses a development key with every scope, kept in {@link devApiKeyFile} (0600) where the CLI
 * and scripts read it: the key an earlier start wrote there, so it stays the same across restarts
 * (and a second start never invalidates the first one's), or a fresh one written there. The key
 * itself is never logged, only where it is; the distributed mode refuses to start.
 *
 * @throws {@link ApiKeyConfigError} when the variable is malformed, when no keys are configured
 * in distributed mode, or when the embedded mode's development key cannot be kept in its file.
 */
export function createApiKeyRegistry(
  config: Pick<HostConfig, 'mode'>,
  env: NodeJS.ProcessEnv,
  out: RegistryLog,
): ApiKeyRegistry {
  const entries = parseApiKeysConfig(env[API_KEYS_ENV]);
  if (entries.length > 0) {
    out.log(`${entries.length} API key(s) configured`);
    return new ApiKeyRegistry(entries);
  }
  if (config.mode !== 'embedded') {
    throw new ApiKeyConfigError(
      'no API keys configured. The distributed gateway does not start without keys: set WOP_API_KEYS to a JSON array like ' +
        '[{"key":"<secret>","scopes":["runs:create","runs:read"],"tenant":"acme"}]',
    );
  }
  const file = devApiKeyFile(env);
  const kept = readDevApiKey(file);
  const dev = createDevApiKey(kept);
  if (kept) {
    out.log(`dev API key (every scope, tenant "default") read from ${file}`);
    return new ApiKeyRegistry([dev]);
  }
  try {
    writeDevApiKey(file, dev.key);
  } catch (error) {
    // A key kept nowhere (and never logged) would lock everybody out: refuse to start instead.
    throw new ApiKeyConfigError(
      `no API keys configured, and the development key cannot be kept in ${file} ` +
        `(${error instanceof Error ? error.message : String(error)}): set ${DEV_API_KEY_FILE_ENV} to a writable file, or configure keys`,
    );
  }
  out.log(`dev API key (every scope, tenant "default") written to ${file}`);
  return new ApiKeyRegistry([dev]);
}
