/** What a token lets its bearer do: `resolve` also inspects; `inspect` only inspects (RFC 0093 §B.4). */
export const TOKEN_INTENTS = ['resolve', 'inspect'] as const;
export type TokenIntent = (typeof TOKEN_INTENTS)[number];

/** The facts a token names; the signer adds the format version, algorithm and key id. */
export interface TokenClaims {
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  /** ISO-8601 instant (`Date.prototype.toISOString` form); the token is refused from then on. */
  readonly expiresAt: string;
  readonly intent: TokenIntent;
}

/**
 * The signed payload of a v1 token (no `ow2.` prefix): `v` and `alg` + `kid` discriminate the
 * format and select the verification key.
 */
export interface TokenPayload extends TokenClaims {
  readonly v: 1;
  readonly alg: 'HS256';
  readonly kid: string;
}

/**
 * What an `ow2.<alg>.<kid>.<payload>.<mac>` token says once verified: its header's `alg` and `kid`
 * (`v: 2` marks the scheme) and the claims its payload carries.
 */
export interface Ow2TokenPayload extends TokenClaims {
  readonly v: 2;
  readonly alg: string;
  readonly kid: string;
}

/** A verified token of either scheme; `v` tells them apart. */
export type VerifiedTokenPayload = TokenPayload | Ow2TokenPayload;

/** Field order of an `ow2.` token's serialized payload: the claims only (alg and kid are its header). */
const CLAIM_FIELDS = ['runId', 'nodeId', 'interruptId', 'expiresAt', 'intent'] as const;

/** Serializes an `ow2.` payload canonically: the claims in fixed order, no whitespace. */
export function serializeClaims(claims: TokenClaims): string {
  return JSON.stringify(Object.fromEntries(CLAIM_FIELDS.map((f) => [f, claims[f]])));
}

/**
 * Parses an `ow2.` payload's JSON text strictly: an object with exactly the claims, each of its
 * type, written in the canonical form {@link serializeClaims} produces. `undefined` otherwise.
 */
export function parseClaims(text: string): TokenClaims | undefined {
  const o = jsonObject(text);
  if (!o || !hasExactly(o, CLAIM_FIELDS) || !validClaims(o)) return undefined;
  const claims = o as unknown as TokenClaims;
  return serializeClaims(claims) === text ? claims : undefined;
}

/** Field order of the serialized payload; the one spelling a token may have. */
const FIELDS = ['v', 'alg', 'kid', 'runId', 'nodeId', 'interruptId', 'expiresAt', 'intent'] as const;

/** Longest identifier a payload may carry; longer ones are malformed. */
const MAX_FIELD_LENGTH = 512;

/** Serializes a payload canonically: fixed field order, no whitespace. */
export function serializePayload(payload: TokenPayload): string {
  return JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, payload[f]])));
}

/**
 * Parses a payload's JSON text strictly: an object with exactly the payload's fields, each of its
 * type, written in the canonical form {@link serializePayload} produces. `undefined` otherwise.
 */
export function parsePayload(text: string): TokenPayload | undefined {
  const o = jsonObject(text);
  if (!o || !hasExactly(o, FIELDS)) return undefined;
  if (o.v !== 1 || o.alg !== 'HS256' || !isIdentifier(o.kid) || !validClaims(o)) return undefined;
  const payload = o as unknown as TokenPayload;
  return serializePayload(payload) === text ? payload : undefined;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return value as Record<string, unknown>;
}

function hasExactly(o: Record<string, unknown>, fields: readonly string[]): boolean {
  return Object.keys(o).length === fields.length && fields.every((f) => Object.hasOwn(o, f));
}

function validClaims(o: Record<string, unknown>): boolean {
  return (
    isIdentifier(o.runId) &&
    isIdentifier(o.nodeId) &&
    isIdentifier(o.interruptId) &&
    isCanonicalInstant(o.expiresAt) &&
    TOKEN_INTENTS.includes(o.intent as TokenIntent)
  );
}

function isIdentifier(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_FIELD_LENGTH;
}

/** An ISO instant exactly as `toISOString` writes it, so one expiry has one spelling. */
export function isCanonicalInstant(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const ms = Date.parse(v);
  return Number.isFinite(ms) && new Date(ms).toISOString() === v;
}
