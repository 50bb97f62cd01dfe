import { randomBytes } from 'node:crypto';
import { LEGACY_TOKEN_KID } from '@openwop/contracts';
import type { KeyRing, TokenKey } from '@openwop/token-domain';

/**
 * The key-ring document of `WOP_TOKEN_KEYS` (and of the embedded host's generated key file):
 * `{"active": "k2", "keys": {"k1": "<base64 secret>", "k2": "…"}, "retired": ["k0"]}`.
 * `active` signs; every other listed key verifies; a kid in `retired` never verifies.
 */
export interface TokenKeysDocument {
  readonly active: string;
  readonly keys: Readonly<Record<string, string>>;
  readonly retired?: readonly string[];
}

/** Fewest secret bytes a key may have (the HMAC-SHA256 output size). */
export const MIN_SECRET_BYTES = 32;

const KID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$/;

/** A configuration problem; its message names fields and key ids, never a secret. */
export class TokenKeysConfigError extends Error {
  constructor(source: string, problem: string) {
    super(
      `${source}: ${problem}. Expected {"active":"k1","keys":{"k1":"<base64 of ${MIN_SECRET_BYTES}+ random bytes>"},"retired":[]}`,
    );
    this.name = 'TokenKeysConfigError';
  }
}

/**
 * Parses a key-ring document into a {@link KeyRing}.
 *
 * @param source names the document in error messages (`WOP_TOKEN_KEYS`, a file path).
 * @throws {@link TokenKeysConfigError} for malformed JSON, a bad kid, a short or non-base64 secret,
 *   or an active key that is missing or retired.
 */
export function parseTokenKeys(raw: string, source: string): KeyRing {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    // The JSON parser's message quotes the input, which holds secrets: do not pass it on.
    throw new TokenKeysConfigError(source, 'is not valid JSON');
  }
  if (!isObject(doc)) throw new TokenKeysConfigError(source, 'must be a JSON object');
  const { active, keys, retired = [] } = doc as Partial<Record<keyof TokenKeysDocument, unknown>>;
  if (typeof active !== 'string' || !KID.test(active))
    throw new TokenKeysConfigError(source, '"active" must be a key id');
  if (!isObject(keys))
    throw new TokenKeysConfigError(source, '"keys" must be an object of key id to base64 secret');
  if (!Array.isArray(retired) || !retired.every((k) => typeof k === 'string')) {
    throw new TokenKeysConfigError(source, '"retired" must be an array of key ids');
  }
  const ring: Record<string, TokenKey> = {};
  for (const [kid, secret] of Object.entries(keys)) {
    if (!KID.test(kid))
      throw new TokenKeysConfigError(
        source,
        `key id ${JSON.stringify(kid.slice(0, 64))} must match ${KID.source}`,
      );
    // identity.md §4: `legacy` names the scheme of v1 tokens, never a key an `ow2.` token may name.
    if (kid === LEGACY_TOKEN_KID)
      throw new TokenKeysConfigError(source, `key id ${LEGACY_TOKEN_KID} is reserved for v1 tokens`);
    if (typeof secret !== 'string' || !BASE64.test(secret))
      throw new TokenKeysConfigError(source, `the secret of key ${kid} must be base64`);
    const bytes = Buffer.from(secret, secret.includes('-') || secret.includes('_') ? 'base64url' : 'base64');
    if (bytes.length < MIN_SECRET_BYTES) {
      throw new TokenKeysConfigError(
        source,
        `the secret of key ${kid} has ${bytes.length} bytes; it needs at least ${MIN_SECRET_BYTES}`,
      );
    }
    ring[kid] = { secret: bytes, ...(retired.includes(kid) ? { retired: true } : {}) };
  }
  if (!Object.hasOwn(ring, active))
    throw new TokenKeysConfigError(source, `the active key ${active} is not in "keys"`);
  if (retired.includes(active)) throw new TokenKeysConfigError(source, `the active key ${active} is retired`);
  return { activeKid: active, keys: ring };
}

/** A fresh one-key document: a random kid and 32 random bytes. */
export function generateTokenKeys(): TokenKeysDocument {
  const kid = `k-${randomBytes(4).toString('hex')}`;
  return { active: kid, keys: { [kid]: randomBytes(MIN_SECRET_BYTES).toString('base64') } };
}

/** What may be logged about a ring: key ids and counts, never a secret. */
export function describeKeyRing(ring: KeyRing): string {
  const all = Object.entries(ring.keys);
  const verifying = all.filter(([, k]) => !k.retired).map(([kid]) => kid);
  const retired = all.filter(([, k]) => k.retired).map(([kid]) => kid);
  return `active key ${ring.activeKid}; verifying ${verifying.join(', ')}${retired.length ? `; retired ${retired.join(', ')}` : ''}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
