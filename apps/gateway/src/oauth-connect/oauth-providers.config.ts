/**
 * The OAuth providers this host is a client of (v2 `oauth.md`, RFC 0199 §A), from
 * `WOP_OAUTH_PROVIDERS`: a JSON array of `{id, authUrl, tokenUrl, clientId, clientSecret?,
 * scopesSupported?, issuer?}`. Endpoints are fixed operator configuration, never request input.
 */
export const OAUTH_PROVIDERS_ENV = 'WOP_OAUTH_PROVIDERS';

export interface OAuthProvider {
  readonly id: string;
  readonly authUrl: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  /** Sent with HTTP Basic on the token request when set (a confidential client). */
  readonly clientSecret?: string;
  /** Scopes a node may ask for; empty means any. */
  readonly scopesSupported: readonly string[];
  /** RFC 9207 issuer: a callback whose `iss` differs is refused before any token request. */
  readonly issuer?: string;
}

const ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Parses {@link OAUTH_PROVIDERS_ENV}; absent or empty is no provider.
 * @throws Error naming the entry and field that are wrong (never a secret).
 */
export function parseOAuthProviders(raw: string | undefined): ReadonlyMap<string, OAuthProvider> {
  const out = new Map<string, OAuthProvider>();
  if (raw === undefined || raw.trim() === '') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`${OAUTH_PROVIDERS_ENV} is not JSON`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${OAUTH_PROVIDERS_ENV} must be a JSON array`);
  parsed.forEach((entry: unknown, i) => {
    const at = `${OAUTH_PROVIDERS_ENV}[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw new Error(`${at} must be an object`);
    const e = entry as Record<string, unknown>;
    if (typeof e.id !== 'string' || !ID.test(e.id)) throw new Error(`${at}.id must match ${ID.source}`);
    if (out.has(e.id)) throw new Error(`${at}.id ${e.id} is listed twice`);
    for (const f of ['authUrl', 'tokenUrl'] as const) {
      if (typeof e[f] !== 'string' || !isHttpUrl(e[f])) throw new Error(`${at}.${f} must be an http(s) URL`);
    }
    if (typeof e.clientId !== 'string' || e.clientId === '')
      throw new Error(`${at}.clientId must be a non-empty string`);
    if (e.clientSecret !== undefined && typeof e.clientSecret !== 'string')
      throw new Error(`${at}.clientSecret must be a string`);
    const scopes = e.scopesSupported ?? [];
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && s !== ''))
      throw new Error(`${at}.scopesSupported must be an array of non-empty strings`);
    if (e.issuer !== undefined && (typeof e.issuer !== 'string' || !isHttpUrl(e.issuer)))
      throw new Error(`${at}.issuer must be an http(s) URL`);
    out.set(e.id, {
      id: e.id,
      authUrl: e.authUrl as string,
      tokenUrl: e.tokenUrl as string,
      clientId: e.clientId,
      ...(typeof e.clientSecret === 'string' ? { clientSecret: e.clientSecret } : {}),
      scopesSupported: scopes as string[],
      ...(typeof e.issuer === 'string' ? { issuer: e.issuer } : {}),
    });
  });
  return out;
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}
