/**
 * The `credential` interrupt kind (RFC 0199 §C, v2 `oauth.md` §The credential interrupt) and the
 * rule that no interrupt of any kind asks for credential material (RFC 0199 §C.6).
 */

/** Why a node suspends on a `credential` interrupt. */
export const CREDENTIAL_REASONS = ['missing', 'expired', 'insufficient_scope'] as const;
export type CredentialReason = (typeof CREDENTIAL_REASONS)[number];

/** `data` of a `credential` interrupt (`CredentialData`, closed). */
export interface CredentialData {
  readonly provider: string;
  readonly scopes: readonly string[];
  readonly reason: CredentialReason;
  /** Host-owned, not pre-authenticated: opening it needs the run's principal (RFC 0199 §C.3). */
  readonly connectUrl: string;
  /** The reference being (re-)authorized; never material. */
  readonly credentialRef?: { readonly ref: string; readonly scope?: string };
}

/** The two outcomes a `credential` interrupt resolves with. */
export const CREDENTIAL_OUTCOMES = ['authorized', 'declined'] as const;
export type CredentialOutcome = (typeof CREDENTIAL_OUTCOMES)[number];

/** The fixed, closed `resumeSchema` of a `credential` interrupt: a resume value carries no credential. */
export const CREDENTIAL_RESUME_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['outcome'],
  properties: { outcome: { enum: [...CREDENTIAL_OUTCOMES] } },
};

/** The node failure code of a declined `credential` interrupt (v2 `errors.json`, 401, not retriable). */
export const CONNECTOR_AUTH_DECLINED = 'connector_auth_declined';

/** One reason a payload or schema breaks the rules, by JSON pointer. */
export interface CredentialProblem {
  readonly path: string;
  readonly message: string;
}

const isString = (v: unknown, min = 0): v is string => typeof v === 'string' && v.length >= min;

/** A `credential-reference` `{ref, scope?}`: never material. */
function isCredentialRef(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  return (
    isString(r.ref, 1) &&
    (r.scope === undefined || typeof r.scope === 'string') &&
    Object.keys(r).every((k) => k === 'ref' || k === 'scope')
  );
}

/** What is wrong with `data` as `CredentialData` (empty when it is one). */
export function credentialDataProblems(d: Record<string, unknown>): CredentialProblem[] {
  const out: CredentialProblem[] = [];
  const need = (field: string, ok: boolean, message: string) => {
    if (!ok) out.push({ path: `/data/${field}`, message });
  };
  for (const k of Object.keys(d))
    if (!['provider', 'scopes', 'reason', 'connectUrl', 'credentialRef'].includes(k))
      out.push({ path: `/data/${k}`, message: 'is not allowed' });
  need('provider', isString(d.provider, 1), 'must be a non-empty string');
  need(
    'scopes',
    Array.isArray(d.scopes) &&
      d.scopes.every((s) => isString(s, 1)) &&
      new Set(d.scopes).size === d.scopes.length,
    'must be an array of distinct non-empty strings',
  );
  need(
    'reason',
    (CREDENTIAL_REASONS as readonly unknown[]).includes(d.reason),
    `must be one of ${CREDENTIAL_REASONS.join(', ')}`,
  );
  need(
    'connectUrl',
    isString(d.connectUrl) && /^https:\/\/[^\s/]+/.test(d.connectUrl),
    'must be an https URL',
  );
  if (d.credentialRef !== undefined)
    need('credentialRef', isCredentialRef(d.credentialRef), 'must be {ref, scope?}');
  return out;
}

/**
 * Words that name credential material in a field or question id (RFC 0199 §C.6: passwords, API
 * keys, access or refresh tokens, payment credentials). Matched on the name's words, so
 * `tokenCount` or `secretary` pass and `apiKey`, `api_key`, `refresh-token` do not.
 */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'apikey',
  'credential',
  'credentials',
  'cvv',
  'cvc',
  'pin',
  'otp',
  'privatekey',
]);
const SECRET_PAIRS: readonly (readonly [string, string])[] = [
  ['api', 'key'],
  ['private', 'key'],
  ['secret', 'key'],
  ['access', 'key'],
  ['card', 'number'],
  ['security', 'code'],
];
const TOKEN_QUALIFIERS = new Set([
  'access',
  'refresh',
  'auth',
  'bearer',
  'session',
  'api',
  'oauth',
  'id',
  'personal',
]);

/** The lower-case words of `name` (`apiKey` → api, key; `refresh_token` → refresh, token). */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether a field or question named `name` asks for credential material. */
export function namesCredentialMaterial(name: string): boolean {
  const words = wordsOf(name);
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  if (words.length === 1 && (words[0] === 'token' || words[0] === 'tokens')) return true;
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    if (SECRET_PAIRS.some(([x, y]) => a === x && b === y)) return true;
    if ((b === 'token' || b === 'tokens') && TOKEN_QUALIFIERS.has(a)) return true;
  }
  return false;
}

const SCHEMA_CHILDREN = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/**
 * Where a JSON Schema asks for credential material (RFC 0199 §C.6, §D.2(d)): a property marked
 * `writeOnly: true` or `format: "password"`, or named like a password, API key, token, secret or
 * payment credential ({@link namesCredentialMaterial}), at any depth. Paths are JSON pointers below `at`.
 */
export function credentialSchemaProblems(schema: unknown, at = ''): CredentialProblem[] {
  const out: CredentialProblem[] = [];
  const visit = (s: unknown, path: string, depth: number): void => {
    if (typeof s !== 'object' || s === null || Array.isArray(s) || depth > 32) return;
    const node = s as Record<string, unknown>;
    if (node.writeOnly === true)
      out.push({ path: `${path}/writeOnly`, message: 'asks for credential material (writeOnly)' });
    if (node.format === 'password')
      out.push({ path: `${path}/format`, message: 'asks for credential material (format: password)' });
    const props = node.properties;
    if (typeof props === 'object' && props !== null && !Array.isArray(props)) {
      for (const [name, sub] of Object.entries(props)) {
        const where = `${path}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (namesCredentialMaterial(name))
          out.push({ path: where, message: `asks for credential material (${name})` });
        visit(sub, where, depth + 1);
      }
    }
    for (const k of SCHEMA_CHILDREN) visit(node[k], `${path}/${k}`, depth + 1);
    for (const k of SCHEMA_LISTS)
      if (Array.isArray(node[k]))
        (node[k] as unknown[]).forEach((x, i) => visit(x, `${path}/${k}/${i}`, depth + 1));
    for (const k of ['$defs', 'definitions', 'patternProperties'])
      if (typeof node[k] === 'object' && node[k] !== null)
        for (const [n, x] of Object.entries(node[k] as Record<string, unknown>))
          visit(x, `${path}/${k}/${n}`, depth + 1);
  };
  visit(schema, at, 0);
  return out;
}

/**
 * Where clarification questions ask for credential material: a question whose `id` names it, or
 * whose `schema` does ({@link credentialSchemaProblems}). `at` is the pointer of the questions array.
 */
export function credentialQuestionProblems(questions: unknown, at: string): CredentialProblem[] {
  if (!Array.isArray(questions)) return [];
  const out: CredentialProblem[] = [];
  questions.forEach((q: unknown, j) => {
    if (typeof q !== 'object' || q === null) return;
    const { id, schema } = q as { id?: unknown; schema?: unknown };
    if (typeof id === 'string' && namesCredentialMaterial(id))
      out.push({ path: `${at}/${j}/id`, message: `asks for credential material (${id})` });
    out.push(...credentialSchemaProblems(schema, `${at}/${j}/schema`));
  });
  return out;
}
