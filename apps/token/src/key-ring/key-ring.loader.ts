import { dirname, join } from 'node:path';
import { registerSecret } from '@openwop/observability';
import { readOrCreateKeyFile, type HostConfig } from '@openwop/platform-nest';
import type { KeyRing } from '@openwop/token-domain';
import { describeKeyRing, generateTokenKeys, parseTokenKeys } from './token-keys.config';

/** Where the log lines of {@link loadKeyRing} go. */
export interface KeyRingLog {
  log(line: string): void;
  warn(line: string): void;
}

/** The embedded host's generated key file: next to its data folder (`.infra/embedded/token-keys.json`). */
export function embeddedKeyFile(dataDir: string): string {
  return join(dirname(dataDir), 'token-keys.json');
}

/**
 * The token service's key ring:
 * - `WOP_TOKEN_KEYS` when set (any mode);
 * - embedded mode without it: the key file next to the data folder, generated (mode 0600) on first
 *   start so tokens survive restarts; with an in-memory data folder, a key that lives as long as the process;
 * - distributed mode without it: a startup failure, since instances must share one ring.
 *
 * @throws Error with a message naming the fix; never a secret.
 */
export function loadKeyRing(
  config: Pick<HostConfig, 'mode' | 'dataDir'>,
  env: NodeJS.ProcessEnv,
  log: KeyRingLog,
): KeyRing {
  const ring = readKeyRing(config, env, log);
  // No log line of the process carries a signing secret, in any of its usual encodings.
  for (const { secret } of Object.values(ring.keys)) {
    registerSecret(secret.toString('base64'), secret.toString('base64url'), secret.toString('hex'));
  }
  return ring;
}

function readKeyRing(
  config: Pick<HostConfig, 'mode' | 'dataDir'>,
  env: NodeJS.ProcessEnv,
  log: KeyRingLog,
): KeyRing {
  const raw = env.WOP_TOKEN_KEYS;
  if (raw !== undefined && raw.trim() !== '') {
    const ring = parseTokenKeys(raw, 'WOP_TOKEN_KEYS');
    log.log(`token keys from WOP_TOKEN_KEYS: ${describeKeyRing(ring)}`);
    return ring;
  }
  if (config.mode === 'distributed') {
    throw new Error(
      'WOP_TOKEN_KEYS is not set. In distributed mode every token-service instance must share one HMAC key ring: ' +
        'set WOP_TOKEN_KEYS to {"active":"k1","keys":{"k1":"<base64 of 32+ random bytes>"}} (tools/stack/stack.sh generates one).',
    );
  }
  if (config.dataDir === undefined) {
    const ring = parseTokenKeys(JSON.stringify(generateTokenKeys()), 'generated key');
    log.warn(
      `no WOP_TOKEN_KEYS and an in-memory data folder: signing with a process-lifetime key (${describeKeyRing(ring)}); tokens will not survive a restart`,
    );
    return ring;
  }
  const file = embeddedKeyFile(config.dataDir);
  const ring = parseTokenKeys(
    readOrCreateKeyFile(file, () => JSON.stringify(generateTokenKeys(), null, 2) + '\n'),
    file,
  );
  log.log(`token keys from ${file}: ${describeKeyRing(ring)}`);
  return ring;
}
