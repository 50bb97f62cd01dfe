import { createHash } from 'node:crypto';
import type { FieldError } from '../common/api.error';

/** The request header (idempotency.md §Layer 1). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The response header set on every keyed response: `true` when it was served from the record. */
export const IDEMPOTENT_REPLAY_HEADER = 'openwop-Idempotent-Replay';

/** Longest key (idempotency.md: "any URL-safe string ≤ 255 characters"; openapi.yaml `maxLength: 255`). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Visible ASCII only: no spaces, controls or non-ASCII (a header value that proxies keep intact). */
const KEY_CHARACTERS = /^[\x21-\x7E]+$/;

/** HTTP methods that mutate: the header applies to them only (a `GET` never honours it). */
export const MUTATING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A key as read from the request: absent, valid, or why it is refused. */
export type ParsedIdempotencyKey =
  | { readonly kind: 'absent' }
  | { readonly kind: 'valid'; readonly key: string }
  | { readonly kind: 'invalid'; readonly error: FieldError };

/**
 * Reads the `Idempotency-Key` header value as Node gives it (a repeated header arrives joined with
 * `", "`, which the character rule then refuses, so a request never carries two keys).
 */
export function parseIdempotencyKey(raw: string | readonly string[] | undefined): ParsedIdempotencyKey {
  if (raw === undefined) return { kind: 'absent' };
  const path = `/headers/${IDEMPOTENCY_KEY_HEADER}`;
  if (typeof raw !== 'string') return { kind: 'invalid', error: { path, message: 'must be sent once' } };
  if (raw.length === 0) return { kind: 'invalid', error: { path, message: 'must not be empty' } };
  if (raw.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return {
      kind: 'invalid',
      error: { path, message: `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` },
    };
  }
  if (!KEY_CHARACTERS.test(raw)) {
    return {
      kind: 'invalid',
      error: {
        path,
        message: 'must be visible ASCII characters (no spaces or control characters); a UUID is conventional',
      },
    };
  }
  return { kind: 'valid', key: raw };
}

/**
 * The v2 key grammar (v2 idempotency.md §Layer 1 "Grammar"): URL-safe characters, 22 to 128 of them.
 * A value outside it is `400 idempotency_key_invalid` on a request served under major 2.
 */
const V2_KEY_GRAMMAR = /^[A-Za-z0-9._~-]{22,128}$/;

/** The v2 entropy floor (idempotency.md: "at least 128 bits of entropy"). */
export const MIN_IDEMPOTENCY_KEY_BITS = 128;

/**
 * The most entropy a key can carry: its length times log2 of the smallest usual alphabet that holds
 * every character of it — decimal digits (10), one-case hex with `-` (17: a canonical UUID), else
 * the whole grammar alphabet (66: base64url). A host cannot see how a key was generated, so this is
 * an upper bound: it refuses keys too short for their alphabet (22 hex digits, 32 decimal digits),
 * while a canonical UUIDv4 (36 × log2 17 ≈ 147) and a base64url UUIDv4 (22 × 6.04 ≈ 133) pass.
 */
export function idempotencyKeyCapacityBits(key: string): number {
  const alphabet = /^[0-9]+$/.test(key) ? 10 : /^[0-9a-f-]+$/.test(key) || /^[0-9A-F-]+$/.test(key) ? 17 : 66;
  return key.length * Math.log2(alphabet);
}

/**
 * Reads the header under major 2: the v1 rules (sent once, not empty), then the v2 grammar and the
 * 128-bit floor. A `/v1/` request keeps {@link parseIdempotencyKey} (ADR 0041).
 */
export function parseIdempotencyKeyV2(raw: string | readonly string[] | undefined): ParsedIdempotencyKey {
  if (raw === undefined) return { kind: 'absent' };
  const path = `/headers/${IDEMPOTENCY_KEY_HEADER}`;
  if (typeof raw !== 'string') return { kind: 'invalid', error: { path, message: 'must be sent once' } };
  if (!V2_KEY_GRAMMAR.test(raw)) {
    return {
      kind: 'invalid',
      error: { path, message: 'must match ^[A-Za-z0-9._~-]{22,128}$; a UUIDv4 is conventional' },
    };
  }
  if (idempotencyKeyCapacityBits(raw) < MIN_IDEMPOTENCY_KEY_BITS) {
    return {
      kind: 'invalid',
      error: {
        path,
        message: `must carry at least ${MIN_IDEMPOTENCY_KEY_BITS} bits of entropy; this one is too short for its alphabet`,
      },
    };
  }
  return { kind: 'valid', key: raw };
}

/**
 * JSON with object keys sorted at every depth, so two bodies that differ only in key order (or in
 * whitespace) have one text. `undefined` members are dropped, as `JSON.stringify` drops them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** What identifies one request under a key: the routed operation, its path parameters, query and body. */
export interface RequestFingerprint {
  /** The routed operation, e.g. `POST /v1/runs/:runId/cancel`. */
  readonly endpoint: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: unknown;
  /** The parsed body (a missing body counts as `{}`). */
  readonly body: unknown;
}

/**
 * The request digest stored with a record: sha256 over the canonical fingerprint. The path
 * parameters are part of it, so one key sent to the cancel of two different runs is a mismatch,
 * never a replay of the other run's answer.
 */
export function requestDigest(request: RequestFingerprint): string {
  const canonical = canonicalJson({
    endpoint: request.endpoint,
    params: request.params,
    query: request.query ?? {},
    body: request.body ?? {},
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/** The digest a key is stored under: the key itself (often a customer identifier) is never written. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * The success body as the idempotency record keeps it: without the top-level `fields` a route
 * shows once (`@ShownOnce`, shown-once.decorator.ts). Anything but an object is kept as it is.
 */
export function withoutShownOnce(body: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) if (!fields.includes(name)) kept[name] = value;
  return kept;
}

/** Whether a failure status is retryable-class (RFC 0093 §C): recorded, never replayed. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Whether a failure is no idempotent retry at all and leaves no record (idempotency.md rule 5):
 * a malformed request (`400`) or an auth failure (`401`, `403`).
 */
export function isUnrecordedStatus(status: number): boolean {
  return status === 400 || status === 401 || status === 403;
}
