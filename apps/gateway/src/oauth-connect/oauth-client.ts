import { createHash, randomBytes } from 'node:crypto';
import type { OAuthProvider } from './oauth-providers.config';

/** A grant's lifetime: its `state` is refused after this (RFC 0199 §A.2: at most 10 minutes). */
export const GRANT_TTL_MS = 10 * 60_000;

/** The secrets of one authorization-code grant: `state` and the PKCE verifier, 256 bits each from a CSPRNG. */
export interface GrantSecrets {
  readonly state: string;
  readonly codeVerifier: string;
}

export function newGrantSecrets(): GrantSecrets {
  return {
    state: randomBytes(32).toString('base64url'),
    codeVerifier: randomBytes(32).toString('base64url'),
  };
}

/** The PKCE `S256` challenge of `verifier` (RFC 7636 §4.2). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** What the grant table keeps of a `state`: its SHA-256, so a read of the table cannot complete a grant. */
export function stateHash(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/**
 * The provider's one fixed redirect URI (RFC 0199 §A.5), distinct per provider (§A.4, RFC 9700
 * §4.4.2.2): `{publicUrl}/oauth/callback/{providerId}`. Never derived from request input.
 */
export function redirectUriOf(publicUrl: string, providerId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/oauth/callback/${encodeURIComponent(providerId)}`;
}

/** The authorization request the user agent is sent to: code flow, PKCE S256, `state`. */
export function authorizationUrl(
  provider: OAuthProvider,
  args: { readonly redirectUri: string; readonly scopes: readonly string[]; readonly secrets: GrantSecrets },
): string {
  const url = new URL(provider.authUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', provider.clientId);
  url.searchParams.set('redirect_uri', args.redirectUri);
  if (args.scopes.length > 0) url.searchParams.set('scope', args.scopes.join(' '));
  url.searchParams.set('state', args.secrets.state);
  url.searchParams.set('code_challenge', s256Challenge(args.secrets.codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/** Whether a credential granted `granted` covers every scope in `wanted`. */
export function scopesCover(granted: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((s) => granted.includes(s));
}

/** The scopes a node asks for that the provider does not list (none when it lists none). */
export function unsupportedScopes(provider: OAuthProvider, wanted: readonly string[]): string[] {
  if (provider.scopesSupported.length === 0) return [];
  return wanted.filter((s) => !provider.scopesSupported.includes(s));
}
