import { dirname, join } from 'node:path';
import { auditSigningKeyFrom, generateAuditSigningKey, type AuditSigningKey } from './signed-head';

/** The operator's audit signing key: a PKCS#8 PEM, or a base64 32-byte Ed25519 seed. */
export const AUDIT_SIGNING_KEY_ENV = 'OPENWOP_AUDIT_SIGNING_KEY';

/** The embedded host's generated key: next to its data folder (`.infra/embedded/audit-signing-key`). */
export function embeddedAuditKeyFile(dataDir: string): string {
  return join(dirname(dataDir), 'audit-signing-key');
}

/** The key a gateway signs chain heads with, and where it came from (`key` undefined only for `none`). */
export interface LoadedAuditSigningKey {
  readonly key: AuditSigningKey | undefined;
  readonly source: 'env' | 'file' | 'process' | 'none';
  /** The variable, the key file, or why there is none: for the log line. */
  readonly from: string;
}

let processKey: AuditSigningKey | undefined;

/**
 * Which key signs audit heads (as the webhook secret ring is chosen, ADR 0028):
 * - `OPENWOP_AUDIT_SIGNING_KEY` when set, in any mode;
 * - embedded without it: the key file next to the data folder, generated (mode 0600) on first start,
 *   so the public key an auditor pinned stays valid across restarts; with an in-memory data folder,
 *   one key for the life of the process, like the data;
 * - distributed without it, or embedded on an external Postgres with no data folder: none (every
 *   gateway instance must sign with one key; a generated one would differ per instance). Heads are
 *   then not signed and `GET /v1/audit/head` is `503`.
 * @throws Error when the variable or the file holds no Ed25519 private key.
 */
export function loadAuditSigningKey(
  config: {
    readonly mode: 'embedded' | 'distributed';
    readonly dataDir: string | undefined;
    readonly databaseUrl: string | undefined;
  },
  env: NodeJS.ProcessEnv,
  readOrCreate: (file: string, create: () => string) => string,
): LoadedAuditSigningKey {
  const raw = env[AUDIT_SIGNING_KEY_ENV];
  if (raw !== undefined && raw.trim() !== '')
    return {
      key: auditSigningKeyFrom(raw, AUDIT_SIGNING_KEY_ENV),
      source: 'env',
      from: AUDIT_SIGNING_KEY_ENV,
    };
  if (config.mode === 'distributed')
    return { key: undefined, source: 'none', from: `${AUDIT_SIGNING_KEY_ENV} is not set` };
  if (config.dataDir === undefined && config.databaseUrl !== undefined)
    return {
      key: undefined,
      source: 'none',
      from: `${AUDIT_SIGNING_KEY_ENV} is not set and there is no data folder to keep a generated key beside the database`,
    };
  if (config.dataDir === undefined) {
    processKey ??= auditSigningKeyFrom(generateAuditSigningKey(), 'generated key');
    return { key: processKey, source: 'process', from: 'a process-lifetime key (in-memory data folder)' };
  }
  const file = embeddedAuditKeyFile(config.dataDir);
  return {
    key: auditSigningKeyFrom(readOrCreate(file, generateAuditSigningKey), file),
    source: 'file',
    from: file,
  };
}
