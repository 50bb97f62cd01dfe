import type { HostConfig } from '@openwop/platform-nest';
import { API_KEYS_ENV, ApiKeyConfigError, parseApiKeysConfig } from './api-key.config';
import { ApiKeyRegistry } from './api-key.registry';
import { createDevApiKey, devApiKeyFile, writeDevApiKey } from './dev-api-key.util';

/** Where the factory reports what it did; lines never contain a configured key. */
export interface RegistryLog {
  log(line: string): void;
  warn(line: string): void;
}

/**
 * Builds the key registry at startup from `WOP_API_KEYS`. With no keys configured, the embedded
 * mode generates a development key with every scope, prints it once and writes it to
 * {@link devApiKeyFile} (0600) for the CLI; the distributed mode refuses to start.
 *
 * @throws {@link ApiKeyConfigError} when the variable is malformed, or when no keys are configured
 * in distributed mode.
 */
export function createApiKeyRegistry(config: Pick<HostConfig, 'mode'>, env: NodeJS.ProcessEnv, out: RegistryLog): ApiKeyRegistry {
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
  const dev = createDevApiKey();
  out.log(`dev API key: ${dev.key}`);
  const file = devApiKeyFile(env);
  try {
    writeDevApiKey(file, dev.key);
    out.log(`dev API key written to ${file}`);
  } catch (error) {
    out.warn(`could not write the dev API key to ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return new ApiKeyRegistry([dev]);
}
