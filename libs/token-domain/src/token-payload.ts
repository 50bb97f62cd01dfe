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

/** The signed payload: `v` and `alg` + `kid` discriminate the format and select the verification key. */
export interface TokenPayload extends TokenClaims {
  readonly v: 1;
  readonly alg: 'HS256';
  readonly kid: string;
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length !== FIELDS.length || !FIELDS.every((f) => Object.hasOwn(o, f))) return undefined;
  if (o.v !== 1 || o.alg !== 'HS256') return undefined;
  for (const f of ['kid', 'runId', 'nodeId', 'interruptId'] as const) {
    if (!isIdentifier(o[f])) return undefined;
  }
  if (!isCanonicalInstant(o.expiresAt)) return undefined;
  if (!TOKEN_INTENTS.includes(o.intent as TokenIntent)) return undefined;
  const payload = o as unknown as TokenPayload;
  return serializePayload(payload) === text ? payload : undefined;
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
