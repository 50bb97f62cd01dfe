import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_ALGORITHM, SIGNATURE_TOLERANCE_SECONDS } from './signature';

/**
 * The companion scheme of RFC 0201 (v2 webhooks.md §Standard Webhooks): the symmetric
 * (HMAC-SHA256) scheme of Standard Webhooks 1.0.0, opted into per subscription at registration.
 */
export const STANDARD_WEBHOOKS_ALGORITHM = 'standard-webhooks-1';

/** Every scheme this host signs with: `v1` always, the companion on opt-in. */
export const SIGNATURE_ALGORITHMS: readonly string[] = [SIGNATURE_ALGORITHM, STANDARD_WEBHOOKS_ALGORITHM];

/** The three Standard Webhooks headers an opted-in delivery adds. */
export const StandardWebhooksHeaders = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** `webhook-id`: no `.` (Standard Webhooks), 16–128 characters (RFC 0201 §C.10). */
export const WEBHOOK_MESSAGE_ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** The symmetric secret's prefix. */
export const STANDARD_WEBHOOKS_SECRET_PREFIX = 'whsec_';

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key of a Standard Webhooks secret: `whsec_<base64>` decoding to 24–64 bytes (the
 * standard's "Random. Between 24 bytes and 64 bytes"); `undefined` for anything else.
 */
export function standardWebhooksKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(STANDARD_WEBHOOKS_SECRET_PREFIX)) return undefined;
  const b64 = secret.slice(STANDARD_WEBHOOKS_SECRET_PREFIX.length);
  if (b64.length === 0 || !STRICT_BASE64.test(b64)) return undefined;
  const key = Buffer.from(b64, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/**
 * `webhook-signature`: one `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{rawBody}")>` entry per
 * key, space-separated (Standard Webhooks §Signature scheme). The `v1,` token is that standard's
 * signature identifier, not the OpenWOP scheme id `v1`.
 */
export function signStandardWebhooks(
  keys: readonly Buffer[],
  messageId: string,
  timestampSeconds: number,
  rawBody: string,
): string {
  const signed = `${messageId}.${timestampSeconds}.${rawBody}`;
  return keys.map((k) => `v1,${createHmac('sha256', k).update(signed, 'utf8').digest('base64')}`).join(' ');
}

/**
 * The three headers of an opted-in attempt (or of the endpoint-verification request). During a
 * rotation's overlap (`previousSecret`, v2 webhooks.md §Standard Webhooks "Rotation"),
 * `webhook-signature` carries one entry per secret, the current one first.
 */
export function standardWebhooksHeaders(input: {
  readonly secret: string;
  readonly previousSecret?: string;
  readonly messageId: string;
  readonly nowSeconds: number;
  readonly body: string;
}): Record<string, string> {
  const key = standardWebhooksKey(input.secret);
  if (!key) throw new Error('not a Standard Webhooks secret (whsec_<base64 of 24–64 bytes>)');
  const previous = input.previousSecret === undefined ? undefined : standardWebhooksKey(input.previousSecret);
  if (input.previousSecret !== undefined && !previous)
    throw new Error('the previous secret is not a Standard Webhooks secret (whsec_<base64 of 24–64 bytes>)');
  if (!WEBHOOK_MESSAGE_ID_PATTERN.test(input.messageId))
    throw new Error(`webhook-id ${input.messageId} does not match ${WEBHOOK_MESSAGE_ID_PATTERN.source}`);
  return {
    [StandardWebhooksHeaders.id]: input.messageId,
    [StandardWebhooksHeaders.timestamp]: String(input.nowSeconds),
    [StandardWebhooksHeaders.signature]: signStandardWebhooks(
      previous ? [key, previous] : [key],
      input.messageId,
      input.nowSeconds,
      input.body,
    ),
  };
}

/**
 * The receiver's recipe (Standard Webhooks §Verifying signatures): the timestamp within ±5 minutes
 * of `nowSeconds`, and some `v1,` entry equal (constant-time) to the expected signature.
 */
export function verifyStandardWebhooks(
  secret: string,
  headers: {
    readonly id: string | undefined;
    readonly timestamp: string | undefined;
    readonly signature: string | undefined;
  },
  rawBody: string,
  nowSeconds: number,
): boolean {
  const key = standardWebhooksKey(secret);
  const ts = Number(headers.timestamp);
  if (!key || headers.id === undefined || !Number.isInteger(ts)) return false;
  if (Math.abs(nowSeconds - ts) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signStandardWebhooks([key], headers.id, ts, rawBody).slice(3), 'base64');
  return (headers.signature ?? '').split(' ').some((entry) => {
    if (!entry.startsWith('v1,')) return false;
    const given = Buffer.from(entry.slice(3), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A registration's `signatureAlgorithms` checked against RFC 0201 §B: the applied list, or why not. */
export type SignatureAlgorithmsCheck =
  | { readonly applied: readonly string[]; readonly standardWebhooks: boolean }
  | { readonly refusal: string };

/**
 * RFC 0201 §B.4–6: absent means `["v1"]`; present, it lists `v1`, repeats nothing, names only
 * schemes in `offered`, and when it lists `standard-webhooks-1` the `secret` is a Standard Webhooks
 * secret.
 */
export function checkSignatureAlgorithms(
  requested: readonly string[] | undefined,
  secret: string | undefined,
  offered: readonly string[] = SIGNATURE_ALGORITHMS,
): SignatureAlgorithmsCheck {
  if (requested === undefined) return { applied: [SIGNATURE_ALGORITHM], standardWebhooks: false };
  if (!requested.includes(SIGNATURE_ALGORITHM))
    return { refusal: `signatureAlgorithms must list "${SIGNATURE_ALGORITHM}"` };
  if (new Set(requested).size !== requested.length)
    return { refusal: 'signatureAlgorithms must not repeat a value' };
  const unknown = requested.filter((a) => !offered.includes(a));
  if (unknown.length > 0)
    return { refusal: `signatureAlgorithms lists ${unknown.join(', ')}, which this host does not offer` };
  const standardWebhooks = requested.includes(STANDARD_WEBHOOKS_ALGORITHM);
  if (standardWebhooks && (secret === undefined || !standardWebhooksKey(secret)))
    return {
      refusal: `${STANDARD_WEBHOOKS_ALGORITHM} needs a secret of the form whsec_<base64 of 24–64 bytes>`,
    };
  return { applied: [...requested], standardWebhooks };
}

/** The endpoint-verification request's body type (`schemas/v2/webhook-verification.schema.json`). */
/** A fresh `whsec_` secret of 32 random bytes (for a rotation of an opted-in subscription). */
export function newStandardWebhooksSecret(random: (n: number) => Buffer = randomBytes): string {
  return `${STANDARD_WEBHOOKS_SECRET_PREFIX}${random(32).toString('base64')}`;
}

export const VERIFICATION_REQUEST_TYPE = 'openwop.webhook.verification';

/** A fresh challenge: 24 random bytes as base64url (32 characters, 192 bits). */
export function newVerificationChallenge(random: (n: number) => Buffer = randomBytes): string {
  return random(24).toString('base64url');
}

/** The verification request's body. */
export function verificationBody(challenge: string): string {
  return JSON.stringify({ type: VERIFICATION_REQUEST_TYPE, challenge });
}

/** Whether an endpoint's answer consents: a 2xx whose JSON `challenge` equals the one sent (RFC 0201 §D.14). */
export function verificationAnswered(status: number, body: string | undefined, challenge: string): boolean {
  if (status < 200 || status >= 300 || body === undefined) return false;
  try {
    const parsed = JSON.parse(body) as unknown;
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as { challenge?: unknown }).challenge === challenge
    );
  } catch {
    return false;
  }
}
