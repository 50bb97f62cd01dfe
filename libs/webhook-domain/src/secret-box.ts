import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import {
  loadHostSecret,
  type HostSecretConfig,
  type HostSecretKind,
  type HostSecretSource,
} from '@openwop/kernel';

/**
 * Webhook signing secrets at rest (docs/adr/0028): AES-256-GCM under an operator key ring.
 *
 * The ring is `OPENWOP_WEBHOOK_SECRET_KEYS`: comma-separated `keyId:base64key` entries, each key 32
 * bytes (standard base64, 44 characters), key ids `[A-Za-z0-9_-]{1,32}`, unique. The first entry is
 * the current key: it seals every new secret; every entry opens what it sealed, so a rotation puts
 * the new key first and keeps the old ones until no row names them.
 *
 * A sealed secret is one string, `v1:<keyId>:<nonce>:<ciphertext+tag>` (nonce 12 random bytes,
 * GCM tag 16 bytes, both base64url), with the subscription's tenant and id as additional
 * authenticated data: a row's value copied onto another subscription does not open. A value that is
 * not an envelope is a secret stored in plain text by a build before this one (64 hex characters);
 * it is read as it is and resealed by the notifier.
 */

/** The envelope's version tag; the only one. */
export const SEALED_SECRET_VERSION = 'v1';

/** The variable that carries the ring. */
export const WEBHOOK_SECRET_KEYS_ENV = 'OPENWOP_WEBHOOK_SECRET_KEYS';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** An operator key ring: `current` seals, every key in `keys` opens. */
export interface WebhookSecretKeyRing {
  readonly current: string;
  readonly keys: ReadonlyMap<string, Buffer>;
}

/** What a subscription's sealed secret is bound to (the additional authenticated data). */
export interface SecretBinding {
  readonly webhookId: string;
  readonly tenant: string;
}

/** A stored secret as read: the secret, and under which key it was sealed (`null`: plain text). */
export interface OpenedSecret {
  readonly secret: string;
  readonly keyId: string | null;
}

/** A stored secret that cannot be read: malformed, sealed under a key not in the ring, or tampered. */
export class WebhookSecretUnreadable extends Error {
  constructor(
    readonly reason: 'malformed' | 'unknown_key' | 'not_authentic' | 'no_key_ring',
    detail: string,
  ) {
    super(`webhook secret unreadable (${reason}): ${detail}`);
    this.name = 'WebhookSecretUnreadable';
  }
}

/**
 * Parses the ring (`source` names where it came from, for the error message).
 * @throws Error naming the entry that is wrong, never a key.
 */
export function parseWebhookSecretKeys(raw: string, source: string): WebhookSecretKeyRing {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new Error(`${source}: no key; expected keyId:base64key[,keyId:base64key…]`);
  const keys = new Map<string, Buffer>();
  entries.forEach((entry, i) => {
    const at = entry.indexOf(':');
    const kid = at < 0 ? '' : entry.slice(0, at);
    const b64 = at < 0 ? '' : entry.slice(at + 1);
    if (!KEY_ID.test(kid))
      throw new Error(`${source}: entry ${i + 1} must be keyId:base64key with keyId of [A-Za-z0-9_-]{1,32}`);
    if (keys.has(kid)) throw new Error(`${source}: key id ${kid} appears twice`);
    const key = Buffer.from(b64, 'base64');
    if (key.length !== KEY_BYTES || key.toString('base64') !== b64)
      throw new Error(
        `${source}: key ${kid} must be exactly ${KEY_BYTES} bytes in standard base64 (openssl rand -base64 32)`,
      );
    keys.set(kid, key);
  });
  return { current: entries[0]!.slice(0, entries[0]!.indexOf(':')), keys };
}

/** A fresh one-key ring in the variable's format; `random` is injectable for tests. */
export function generateWebhookSecretKeys(random: (n: number) => Buffer = randomBytes): string {
  return `k${random(4).toString('hex')}:${random(KEY_BYTES).toString('base64')}`;
}

/** The first 8 hex of sha256(key): how logs name a key. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** `current k2 (fp 1a2b3c4d); also opens k1 (fp …)`: no key material. */
export function describeWebhookKeyRing(ring: WebhookSecretKeyRing): string {
  const fp = (kid: string) => `${kid} (fp ${keyFingerprint(ring.keys.get(kid)!)})`;
  const others = [...ring.keys.keys()].filter((k) => k !== ring.current);
  return `current ${fp(ring.current)}${others.length ? `; also opens ${others.map(fp).join(', ')}` : ''}`;
}

/** Whether a stored value is an envelope (else a plain-text secret of an earlier build). */
export function isSealedSecret(stored: string): boolean {
  return stored.startsWith(`${SEALED_SECRET_VERSION}:`);
}

/** Whether the notifier should reseal a stored value: plain text, or sealed under a key that is not the current one. */
export function needsReseal(ring: WebhookSecretKeyRing, stored: string): boolean {
  return !isSealedSecret(stored) || stored.split(':')[1] !== ring.current;
}

function aad(b: SecretBinding): Buffer {
  return Buffer.from(
    JSON.stringify(['openwop.webhook-secret', SEALED_SECRET_VERSION, b.tenant, b.webhookId]),
    'utf8',
  );
}

/** Seals `secret` under the ring's current key, bound to the subscription; a fresh nonce each time. */
export function sealWebhookSecret(
  ring: WebhookSecretKeyRing,
  secret: string,
  binding: SecretBinding,
  random: (n: number) => Buffer = randomBytes,
): string {
  const key = ring.keys.get(ring.current);
  if (!key) throw new Error(`the current key ${ring.current} is not in the ring`);
  const nonce = random(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(binding));
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [SEALED_SECRET_VERSION, ring.current, nonce.toString('base64url'), ct.toString('base64url')].join(
    ':',
  );
}

/**
 * Reads a stored secret: an envelope is opened with the key it names and the subscription's
 * binding; any other value is a plain-text secret of an earlier build (`keyId: null`). `ring` may
 * be undefined only where no envelope can exist (then only plain text reads).
 * @throws WebhookSecretUnreadable (no secret or key in its message).
 */
export function openWebhookSecret(
  ring: WebhookSecretKeyRing | undefined,
  stored: string,
  binding: SecretBinding,
): OpenedSecret {
  if (!isSealedSecret(stored)) return { secret: stored, keyId: null };
  const parts = stored.split(':');
  const [, kid, nonceText, ctText] = parts;
  if (
    parts.length !== 4 ||
    !kid ||
    !nonceText ||
    !ctText ||
    !BASE64URL.test(nonceText) ||
    !BASE64URL.test(ctText)
  )
    throw new WebhookSecretUnreadable(
      'malformed',
      `subscription ${binding.webhookId}: not v1:<keyId>:<nonce>:<ciphertext>`,
    );
  if (!ring)
    throw new WebhookSecretUnreadable(
      'no_key_ring',
      `subscription ${binding.webhookId} is sealed under key ${kid} and no ${WEBHOOK_SECRET_KEYS_ENV} is configured`,
    );
  const key = ring.keys.get(kid);
  if (!key)
    throw new WebhookSecretUnreadable(
      'unknown_key',
      `subscription ${binding.webhookId} is sealed under key ${kid}, which is not in the ring (${[...ring.keys.keys()].join(', ')})`,
    );
  const nonce = Buffer.from(nonceText, 'base64url');
  const body = Buffer.from(ctText, 'base64url');
  if (nonce.length !== NONCE_BYTES || body.length <= TAG_BYTES)
    throw new WebhookSecretUnreadable(
      'malformed',
      `subscription ${binding.webhookId}: nonce or ciphertext of the wrong size`,
    );
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(binding));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    const secret = Buffer.concat([
      decipher.update(body.subarray(0, body.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
    return { secret, keyId: kid };
  } catch {
    throw new WebhookSecretUnreadable(
      'not_authentic',
      `subscription ${binding.webhookId}: key ${kid} does not authenticate it (another key under that id, an edited value, or a value of another subscription)`,
    );
  }
}

/** Where the ring came from, for the startup log line. */
export type WebhookKeyRingSource = HostSecretSource;

/** The ring a process uses, and where it came from (`ring` undefined only for `none`). */
export interface LoadedWebhookKeyRing {
  readonly ring: WebhookSecretKeyRing | undefined;
  readonly source: WebhookKeyRingSource;
  /** The variable, the key file, or why there is none: for the log line. */
  readonly from: string;
}

/** The embedded host's generated ring: next to its data folder (`.infra/embedded/webhook-secret-keys`). */
export function embeddedWebhookKeyFile(dataDir: string): string {
  return join(dirname(dataDir), 'webhook-secret-keys');
}

const WEBHOOK_SECRET_KEYS: HostSecretKind<WebhookSecretKeyRing> = {
  env: WEBHOOK_SECRET_KEYS_ENV,
  parse: parseWebhookSecretKeys,
  generate: () => `${generateWebhookSecretKeys()}\n`,
  file: embeddedWebhookKeyFile,
  processValue: { current: undefined },
};

/**
 * Which ring a process uses, chosen as every host secret is ({@link loadHostSecret}):
 * `OPENWOP_WEBHOOK_SECRET_KEYS`; embedded without it, the key file next to the data folder (so
 * secrets survive restarts) or, with an in-memory data folder and PGlite in memory, a key for the
 * life of the process (the gateway and notifier modules of the host share it); distributed without
 * it, none: the gateway then refuses registrations and the notifier refuses to start while
 * subscriptions exist (instances must share one ring).
 * @throws Error when the ring is malformed, naming the entry.
 */
export function loadWebhookSecretKeys(
  config: HostSecretConfig,
  env: NodeJS.ProcessEnv,
  readOrCreate: (file: string, create: () => string) => string,
): LoadedWebhookKeyRing {
  const { value, source, from } = loadHostSecret(WEBHOOK_SECRET_KEYS, config, env, readOrCreate);
  return { ring: value, source, from };
}

/** The encodings of every key in `ring`, for the log redaction. */
export function keyRingEncodings(ring: WebhookSecretKeyRing): string[] {
  return [...ring.keys.values()].flatMap((k) => [
    k.toString('base64'),
    k.toString('base64url'),
    k.toString('hex'),
  ]);
}
