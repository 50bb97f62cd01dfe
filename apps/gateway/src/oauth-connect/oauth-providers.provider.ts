import { OAUTH_PROVIDERS_ENV, parseOAuthProviders, type OAuthProvider } from './oauth-providers.config';

/** DI token of the configured providers ({@link OAUTH_PROVIDERS_ENV}). */
export const OAUTH_PROVIDERS = Symbol('OAUTH_PROVIDERS');

export type OAuthProviders = ReadonlyMap<string, OAuthProvider>;

export const oauthProvidersProvider = {
  provide: OAUTH_PROVIDERS,
  useFactory: (): OAuthProviders => parseOAuthProviders(process.env[OAUTH_PROVIDERS_ENV]),
};
