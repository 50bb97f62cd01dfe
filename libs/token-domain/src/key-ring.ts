/** One HMAC secret of the ring. A retired key neither signs nor verifies. */
export interface TokenKey {
  readonly secret: Buffer;
  readonly retired?: boolean;
}

/**
 * The token service's HMAC keys by key id (`kid`). The active key signs new tokens; every other
 * non-retired key still verifies the tokens it signed, so rotating the active key orphans nothing
 * (RFC 0093 §B.3). Retiring a key refuses its outstanding tokens.
 */
export interface KeyRing {
  readonly activeKid: string;
  readonly keys: Readonly<Record<string, TokenKey>>;
}

/** The only algorithm today's tokens use (`interrupt.md` open gap I4 leaves others to the future). */
export const TOKEN_ALGORITHM = 'HS256';

/** The secret that verifies tokens of `kid`, or `undefined` for an unknown or retired key. */
export function verificationSecret(ring: KeyRing, kid: string): Buffer | undefined {
  // Own properties only: a `kid` of "__proto__" or "constructor" must not reach Object.prototype.
  if (!Object.hasOwn(ring.keys, kid)) return undefined;
  const key = ring.keys[kid];
  return key && !key.retired ? key.secret : undefined;
}

/**
 * The active key's id and secret.
 *
 * @throws Error when the active key is missing or retired (a configuration error).
 */
export function signingKey(ring: KeyRing): { readonly kid: string; readonly secret: Buffer } {
  const secret = verificationSecret(ring, ring.activeKid);
  if (!secret) throw new Error(`the active token key ${ring.activeKid} is missing or retired`);
  return { kid: ring.activeKid, secret };
}
