/** One configured API key, as written in `WOP_API_KEYS`. Only ever held until it is hashed. */
export interface ApiKeyConfigEntry {
  readonly key: string;
  readonly scopes: readonly string[];
  readonly tenant: string;
  /** Opaque principal id recorded as the run owner; defaults to the key id. */
  readonly principal?: string;
  /** Stable, loggable key id; defaults to a prefix of the key's SHA-256. */
  readonly id?: string;
  /**
   * Groups the principal belongs to (names without the `group:` prefix): an approvers list entry
   * `group:<name>` admits it. A principal's groups are the union over its keys in the tenant.
   */
  readonly groups?: readonly string[];
  /**
   * Roles the principal holds (names without the `role:` prefix): a major-2 interrupt's
   * `approverRoleRefs` entry admits a holder (RFC 0104). The union over its keys in the tenant.
   */
  readonly roles?: readonly string[];
}

/** At most this many groups per key, each name at most this long (the approvers list's name bound). */
export const MAX_KEY_GROUPS = 100;
export const MAX_GROUP_NAME_LENGTH = 200;

/** `WOP_API_KEYS` is malformed; the message says what and where, never a key value. */
export class ApiKeyConfigError extends Error {
  constructor(message: string) {
    super(`WOP_API_KEYS: ${message}`);
    this.name = 'ApiKeyConfigError';
  }
}

/** The name of the environment variable holding the API keys. */
export const API_KEYS_ENV = 'WOP_API_KEYS';

const EXAMPLE = '[{"key":"<secret>","scopes":["runs:create","runs:read"],"tenant":"acme"}]';

/**
 * Parses `WOP_API_KEYS`: a JSON array of `{key, scopes, tenant, principal?, id?, groups?}`. Returns
 * `[]` when the variable is unset or blank.
 *
 * @throws {@link ApiKeyConfigError} when the value is not such an array, a field has the wrong
 * type, or a key or id appears twice.
 */
export function parseApiKeysConfig(raw: string | undefined): ApiKeyConfigEntry[] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiKeyConfigError(`not valid JSON; expected an array like ${EXAMPLE}`);
  }
  if (!Array.isArray(parsed)) throw new ApiKeyConfigError(`must be a JSON array like ${EXAMPLE}`);
  const entries = parsed.map((item, index) => parseEntry(item, index));
  assertUnique(
    entries.map((e) => e.key),
    (i) => `entry ${i} repeats the key of an earlier entry`,
  );
  assertUnique(
    entries.map((e) => e.id),
    (i) => `entry ${i} repeats id ${String(entries[i]?.id)}`,
  );
  return entries;
}

function parseEntry(item: unknown, index: number): ApiKeyConfigEntry {
  const where = `entry ${index}`;
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    throw new ApiKeyConfigError(`${where} must be an object`);
  const e = item as Record<string, unknown>;
  const unknown = Object.keys(e).filter(
    (k) => !['key', 'scopes', 'tenant', 'principal', 'id', 'groups', 'roles'].includes(k),
  );
  if (unknown.length) throw new ApiKeyConfigError(`${where} has unknown field(s) ${unknown.join(', ')}`);
  if (typeof e.key !== 'string' || e.key.length < 8) {
    throw new ApiKeyConfigError(`${where}: "key" must be a string of at least 8 characters`);
  }
  if (/\s/.test(e.key)) throw new ApiKeyConfigError(`${where}: "key" must not contain whitespace`);
  if (!Array.isArray(e.scopes) || !e.scopes.every((s) => typeof s === 'string' && s.length > 0)) {
    throw new ApiKeyConfigError(`${where}: "scopes" must be an array of non-empty strings`);
  }
  if (typeof e.tenant !== 'string' || e.tenant === '')
    throw new ApiKeyConfigError(`${where}: "tenant" must be a non-empty string`);
  for (const field of ['principal', 'id'] as const) {
    if (e[field] !== undefined && (typeof e[field] !== 'string' || e[field] === '')) {
      throw new ApiKeyConfigError(`${where}: "${field}" must be a non-empty string when present`);
    }
  }
  const groups = e.groups === undefined ? undefined : namesOf(e.groups, 'groups', 'group:', where);
  const roles = e.roles === undefined ? undefined : namesOf(e.roles, 'roles', 'role:', where);
  return {
    key: e.key,
    scopes: e.scopes as string[],
    tenant: e.tenant,
    ...(typeof e.principal === 'string' ? { principal: e.principal } : {}),
    ...(typeof e.id === 'string' ? { id: e.id } : {}),
    ...(groups !== undefined && groups.length > 0 ? { groups } : {}),
    ...(roles !== undefined && roles.length > 0 ? { roles } : {}),
  };
}

/**
 * `groups` or `roles`: distinct names, each non-empty, without whitespace and without the entry
 * prefix (`group:`, `role:`).
 */
function namesOf(value: unknown, field: 'groups' | 'roles', prefix: string, where: string): string[] {
  const ok = (g: unknown): g is string =>
    typeof g === 'string' && g.length >= 1 && g.length <= MAX_GROUP_NAME_LENGTH && !/\s/.test(g);
  if (!Array.isArray(value) || value.length > MAX_KEY_GROUPS || !value.every(ok)) {
    throw new ApiKeyConfigError(
      `${where}: "${field}" must be an array of at most ${MAX_KEY_GROUPS} names of 1 to ${MAX_GROUP_NAME_LENGTH} characters without whitespace`,
    );
  }
  const prefixed = value.find((g) => g.startsWith(prefix));
  if (prefixed !== undefined) {
    throw new ApiKeyConfigError(
      `${where}: "${field}" names each without its "${prefix}" prefix (write "${prefixed.slice(prefix.length)}")`,
    );
  }
  return [...new Set(value)];
}

function assertUnique(values: readonly (string | undefined)[], describe: (index: number) => string): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (value === undefined) return;
    if (seen.has(value)) throw new ApiKeyConfigError(describe(index));
    seen.add(value);
  });
}
