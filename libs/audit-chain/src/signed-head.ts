import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * Where a tenant's chain stood when the host signed it: its last record's `seq` and `hash` (0 and
 * the genesis hash for an empty chain), and when it signed.
 */
export interface AuditHead {
  readonly tenant: string;
  readonly seq: number;
  readonly hash: string;
  readonly signedAt: string;
}

/**
 * A chain head signed with the host's audit key (Ed25519): the first line of `wop audit export`,
 * the body of `GET /v1/audit/head`. `kid` names the key (see {@link auditKeyId}); `signature` is
 * base64url over {@link auditHeadSigningInput}.
 */
export interface SignedAuditHead {
  readonly type: typeof AUDIT_HEAD_TYPE;
  readonly alg: 'Ed25519';
  readonly kid: string;
  readonly head: AuditHead;
  readonly signature: string;
}

export const AUDIT_HEAD_TYPE = 'audit-head';

/** What the signature covers: a fixed purpose (no other signed text reads as a head), the key id and the head. */
export function auditHeadSigningInput(kid: string, head: AuditHead): Buffer {
  const { tenant, seq, hash, signedAt } = head;
  return Buffer.from(
    canonicalJson({ purpose: 'openwop.audit-head.v1', kid, tenant, seq, hash, signedAt }),
    'utf8',
  );
}

/** The host's audit signing key: the private key, its public half and the public key's id. */
export interface AuditSigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly kid: string;
}

/** The DER prefix of a PKCS#8 Ed25519 private key before its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** The DER prefix of an SPKI Ed25519 public key before its 32 raw bytes (RFC 8410). */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A fresh Ed25519 key as PKCS#8 PEM: what the embedded host writes to its key file. */
export function generateAuditSigningKey(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * The signing key in `text`: a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), or the 32-byte Ed25519
 * seed in base64 or base64url.
 * @throws Error when it is neither, or not an Ed25519 key (`source` names where it came from).
 */
export function auditSigningKeyFrom(text: string, source: string): AuditSigningKey {
  const trimmed = text.trim();
  let privateKey: KeyObject;
  try {
    if (trimmed.startsWith('-----BEGIN')) privateKey = createPrivateKey(trimmed);
    else {
      const seed = Buffer.from(trimmed, 'base64');
      if (seed.length !== 32) throw new Error(`expected a 32-byte Ed25519 seed, got ${seed.length} bytes`);
      privateKey = createPrivateKey({
        key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
        format: 'der',
        type: 'pkcs8',
      });
    }
  } catch (e) {
    throw new Error(
      `${source}: not an Ed25519 private key (PKCS#8 PEM, or a base64 32-byte seed): ${(e as Error).message}`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`${source}: an ${String(privateKey.asymmetricKeyType)} key, not Ed25519`);
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, kid: auditKeyId(publicKey) };
}

/** The public key's 32 raw bytes, base64url: how the host publishes it and `--public-key` takes it. */
export function rawPublicKey(publicKey: KeyObject): string {
  return publicKey
    .export({ type: 'spki', format: 'der' })
    .subarray(SPKI_ED25519_PREFIX.length)
    .toString('base64url');
}

/** The key id: the first 16 hex digits of SHA-256 over the raw public key. */
export function auditKeyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(Buffer.from(rawPublicKey(publicKey), 'base64url'))
    .digest('hex')
    .slice(0, 16);
}

/**
 * A public key from `text`: the 32 raw bytes in base64 or base64url (as the host publishes it), or
 * an SPKI PEM (`-----BEGIN PUBLIC KEY-----`).
 * @throws Error when it is neither, or not Ed25519.
 */
export function auditPublicKeyFrom(text: string): KeyObject {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    if (trimmed.startsWith('-----BEGIN')) key = createPublicKey(trimmed);
    else {
      const raw = Buffer.from(trimmed, 'base64');
      if (raw.length !== 32) throw new Error(`expected 32 bytes, got ${raw.length}`);
      key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
    }
  } catch (e) {
    throw new Error(
      `not an Ed25519 public key (base64 of 32 bytes, or an SPKI PEM): ${(e as Error).message}`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`an ${String(key.asymmetricKeyType)} key, not Ed25519`);
  return key;
}

/** Signs `head` with the host's key. */
export function signAuditHead(head: AuditHead, key: AuditSigningKey): SignedAuditHead {
  const signature = sign(null, auditHeadSigningInput(key.kid, head), key.privateKey).toString('base64url');
  return { type: AUDIT_HEAD_TYPE, alg: 'Ed25519', kid: key.kid, head, signature };
}

/**
 * Whether `signed` is a head signed by `publicKey`: its shape, its key id (the key's own), and the
 * signature over exactly that head. Returns the reason when it is not.
 */
export function checkAuditHeadSignature(
  signed: SignedAuditHead,
  publicKey: KeyObject,
): { ok: true } | { ok: false; reason: string } {
  const kid = auditKeyId(publicKey);
  if (signed.kid !== kid)
    return { ok: false, reason: `signed by key ${signed.kid}, not by the given key ${kid}` };
  const signature = Buffer.from(signed.signature, 'base64url');
  if (
    signature.length !== 64 ||
    !verify(null, auditHeadSigningInput(signed.kid, signed.head), publicKey, signature)
  )
    return {
      ok: false,
      reason:
        'the signature does not verify under the given key (the head was edited, or signed by another key)',
    };
  return { ok: true };
}

const HEX64 = /^[0-9a-f]{64}$/;

/** `value` as a {@link SignedAuditHead}, or what is wrong with it. */
export function parseSignedAuditHead(value: unknown): SignedAuditHead | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const o = value as Record<string, unknown>;
  if (o.type !== AUDIT_HEAD_TYPE) return `type is not ${AUDIT_HEAD_TYPE}`;
  if (o.alg !== 'Ed25519') return 'alg is not Ed25519';
  if (typeof o.kid !== 'string' || typeof o.signature !== 'string') return 'no kid or signature';
  const h = o.head as Record<string, unknown> | null;
  if (typeof h !== 'object' || h === null) return 'no head';
  if (typeof h.tenant !== 'string' || typeof h.signedAt !== 'string') return 'head has no tenant or signedAt';
  if (typeof h.seq !== 'number' || !Number.isSafeInteger(h.seq) || h.seq < 0)
    return 'head seq is not an integer >= 0';
  if (typeof h.hash !== 'string' || !HEX64.test(h.hash)) return 'head hash is not 64 hex digits';
  return {
    type: AUDIT_HEAD_TYPE,
    alg: 'Ed25519',
    kid: o.kid,
    signature: o.signature,
    head: { tenant: h.tenant, seq: h.seq, hash: h.hash, signedAt: h.signedAt },
  };
}
