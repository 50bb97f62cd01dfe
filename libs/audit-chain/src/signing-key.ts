import { dirname, join } from 'node:path';
import {
  loadHostSecret,
  type HostSecretConfig,
  type HostSecretKind,
  type HostSecretSource,
} from '@openwop/kernel';
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
  readonly source: HostSecretSource;
  /** The variable, the key file, or why there is none: for the log line. */
  readonly from: string;
}

const AUDIT_SIGNING_KEY: HostSecretKind<AuditSigningKey> = {
  env: AUDIT_SIGNING_KEY_ENV,
  parse: auditSigningKeyFrom,
  generate: generateAuditSigningKey,
  file: embeddedAuditKeyFile,
  processValue: { current: undefined },
};

/**
 * Which key signs audit heads, chosen as every host secret is ({@link loadHostSecret}, ADR 0028):
 * `OPENWOP_AUDIT_SIGNING_KEY`; embedded without it, the key file next to the data folder (so the
 * public key an auditor pinned stays valid across restarts) or, with an in-memory data folder, a key
 * for the life of the process; distributed without it, none: every gateway instance must sign with
 * one key, so heads are then not signed and `GET /v1/audit/head` is `503`.
 * @throws Error when the variable or the file holds no Ed25519 private key.
 */
export function loadAuditSigningKey(
  config: HostSecretConfig,
  env: NodeJS.ProcessEnv,
  readOrCreate: (file: string, create: () => string) => string,
): LoadedAuditSigningKey {
  const { value, source, from } = loadHostSecret(AUDIT_SIGNING_KEY, config, env, readOrCreate);
  return { key: value, source, from };
}
