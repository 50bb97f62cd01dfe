import { createHash } from 'node:crypto';
import { oauthFamilyRecord } from '../discovery/discovery-v2.document';
import {
  authorizationUrl,
  newGrantSecrets,
  redirectUriOf,
  s256Challenge,
  scopesCover,
  stateHash,
  unsupportedScopes,
} from './oauth-client';
import { parseOAuthProviders } from './oauth-providers.config';

const PROVIDERS = JSON.stringify([
  {
    id: 'acme',
    authUrl: 'https://as.example/authorize',
    tokenUrl: 'https://as.example/token',
    clientId: 'c1',
    clientSecret: 'shh',
    scopesSupported: ['read', 'write'],
    issuer: 'https://as.example',
  },
  { id: 'other', authUrl: 'https://o.example/a', tokenUrl: 'https://o.example/t', clientId: 'c2' },
]);

describe('the OAuth client (RFC 0199 §A)', () => {
  const providers = parseOAuthProviders(PROVIDERS);
  const acme = providers.get('acme')!;

  it('builds an authorization URL with PKCE S256, state and the fixed per-provider redirect URI', () => {
    const secrets = newGrantSecrets();
    const url = new URL(
      authorizationUrl(acme, {
        redirectUri: redirectUriOf('https://wop.example/', 'acme'),
        scopes: ['read'],
        secrets,
      }),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'c1',
      redirect_uri: 'https://wop.example/oauth/callback/acme',
      scope: 'read',
      state: secrets.state,
      code_challenge: createHash('sha256').update(secrets.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(redirectUriOf('https://wop.example', 'other')).not.toBe(
      redirectUriOf('https://wop.example', 'acme'),
    );
  });

  it('draws 256-bit states and verifiers, fresh each time, and keeps only a hash of the state', () => {
    const a = newGrantSecrets();
    const b = newGrantSecrets();
    expect(Buffer.from(a.state, 'base64url')).toHaveLength(32);
    expect(Buffer.from(a.codeVerifier, 'base64url')).toHaveLength(32);
    expect(a.state).not.toBe(b.state);
    expect(stateHash(a.state)).not.toContain(a.state);
    // RFC 7636 Appendix B.
    expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('checks scopes against the provider and a stored credential', () => {
    expect(unsupportedScopes(acme, ['read', 'admin'])).toEqual(['admin']);
    expect(unsupportedScopes(providers.get('other')!, ['anything'])).toEqual([]);
    expect(scopesCover(['read', 'write'], ['read'])).toBe(true);
    expect(scopesCover(['read'], ['read', 'write'])).toBe(false);
  });

  it('refuses a malformed provider list, naming the entry', () => {
    expect(parseOAuthProviders(undefined).size).toBe(0);
    expect(() => parseOAuthProviders('{')).toThrow('not JSON');
    expect(() => parseOAuthProviders('[{"id":"x"}]')).toThrow('[0].authUrl');
    expect(() =>
      parseOAuthProviders('[{"id":"x","authUrl":"https://a","tokenUrl":"https://user:pw@t","clientId":"c"}]'),
    ).toThrow('[0].tokenUrl');
  });

  it('advertises oauth.credentialInterrupt only with a provider and an https public URL, never a client secret', () => {
    const list = [...providers.values()];
    expect(oauthFamilyRecord({ publicUrl: 'http://127.0.0.1:8080', providers: list })).toBeUndefined();
    expect(oauthFamilyRecord({ publicUrl: 'https://wop.example', providers: [] })).toBeUndefined();
    const record = oauthFamilyRecord({ publicUrl: 'https://wop.example', providers: list });
    expect(record).toMatchObject({ credentialInterrupt: true, grants: ['authorization_code'] });
    expect(JSON.stringify(record)).not.toMatch(/shh|clientId|clientSecret/);
  });
});
