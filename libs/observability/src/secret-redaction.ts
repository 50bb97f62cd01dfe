/** What a redacted secret is replaced with. */
export const REDACTED = '[redacted]';

/** Shortest literal secret {@link registerSecret} keeps: shorter strings would redact ordinary words. */
const MIN_SECRET_LENGTH = 8;

/**
 * The secret shapes redacted from any text that reaches a log line:
 * - a callback URL's token segment: `/v1/interrupts/<token>` (a route template `:token` and the
 *   `*` of an unmatched path's shape stay);
 * - a signed resolution token anywhere: `base64url(canonical JSON payload).base64url(HMAC)`; the
 *   payload is a JSON object, so it starts `eyJ` (`{"`), also the payload part alone once long;
 * - an `Authorization` scheme value: `Bearer <key>`, `Basic <credentials>`;
 * - a header or field named like a credential written as `name: value` / `"name":"value"` / `name=value`;
 * - the embedded mode's development key `wop_dev_…`;
 * - a credential in a query string (`?token=`, `&api_key=`, …).
 */
const PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/(\/v1\/interrupts\/)(?![:*])[^\s/?#"'<>\\`]+/g, `$1${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?/g, REDACTED],
  [/\b(Bearer|Basic)(\s+)[^\s"',;]+/gi, `$1$2${REDACTED}`],
  [
    /\b((?:proxy-)?authorization|x-api-key|api[-_]?key|cookie|password|secret|(?:resolve|inspect|interrupt)[-_]?token)(["']?\s*[:=]\s*["']?)(?!\[redacted\])(?:(?:Bearer|Basic)\s+)?[^\s"',;}&]+/gi,
    `$1$2${REDACTED}`,
  ],
  [/\bwop_dev_[A-Za-z0-9_-]+/g, `wop_dev_${REDACTED}`],
  [/([?&](?:token|access_token|api_key|apikey|key|signature|sig)=)[^&\s#"']+/gi, `$1${REDACTED}`],
];

/** Field names whose values are credentials, whatever they hold. */
const SECRET_FIELD =
  /^(?:(?:proxy-)?authorization|cookie|set-cookie|x-api-key|api[-_]?key|password|secret|token|[a-z]*[-_]?(?:token|secret)|callback[-_]?url)$/i;

const secrets = new Set<string>();

/** Whether a field, header or route parameter named `name` holds a credential (`token`, `*secret`, `apiKey`, …). */
export function isSecretName(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/**
 * Adds literal secrets (configured API keys, signing keys in their encodings) that are redacted
 * wherever they appear, whatever their shape. Values shorter than 8 characters are ignored.
 */
export function registerSecret(...values: readonly string[]): void {
  for (const v of values) if (typeof v === 'string' && v.length >= MIN_SECRET_LENGTH) secrets.add(v);
}

/** `text` with every secret shape and every registered secret replaced by {@link REDACTED}. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of `value` safe to log: strings through {@link redactSecrets}, fields named like a
 * credential replaced whole, errors as `{name, message, stack}` redacted, nested values up to
 * depth 8 (deeper: `[depth]`), cycles cut (`[cycle]`). Other primitives are returned as they are.
 */
export function redactValue(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[cycle]';
  if (depth >= 8) return '[depth]';
  seen.add(value);
  if (value instanceof Error) {
    return {
      name: value.name,
      message: redactSecrets(value.message),
      ...(value.stack !== undefined ? { stack: redactSecrets(value.stack) } : {}),
    };
  }
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      SECRET_FIELD.test(k) && v !== undefined && v !== null && v !== ''
        ? REDACTED
        : redactValue(v, depth + 1, seen);
  }
  return out;
}
