import { Inject, Injectable, Logger } from '@nestjs/common';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { ApiError } from '../common/api.error';
import { ResolveInterruptHandler } from '../resolve-interrupt/resolve-interrupt.handler';
import { RunReadRepository } from '../runs/run-read.repository';
import { WebhookSecretSealer } from '../webhooks/webhook-secret.sealer';
import { CredentialResumeCheck, pendingCredentialOf } from './credential-resume.check';
import { authorizationUrl, GRANT_TTL_MS, newGrantSecrets, redirectUriOf, stateHash } from './oauth-client';
import { OAuthCredentialRepository, type PendingGrant } from './oauth-credential.repository';
import { OAUTH_PROVIDERS, type OAuthProviders } from './oauth-providers.provider';

/** What a connect or a callback ended in, for the user agent. */
export type ConnectOutcome =
  | { readonly redirect: string }
  | { readonly outcome: 'authorized' | 'declined'; readonly provider: string };

/** The query of a provider's redirect back to the host (RFC 6749 §4.1.2, RFC 9207). */
export interface CallbackQuery {
  readonly code?: string;
  readonly state?: string;
  readonly iss?: string;
  readonly error?: string;
}

const NOT_HERE = 'No credential interrupt waits for you at this run and node.';

/**
 * The connect flow of a `credential` interrupt (RFC 0199 §A, §C; ADR 0044): `connectUrl` starts an
 * authorization-code grant with PKCE S256 and a fresh `state` bound to the run's principal and the
 * interrupt; the provider's callback completes it only for that principal, stores the credential
 * sealed, and resolves the interrupt `authorized` (or `declined` when the user refused at the provider).
 */
@Injectable()
export class OAuthConnectHandler {
  private readonly logger = new Logger('OAuth');

  constructor(
    @Inject(HOST_CONFIG) private readonly config: HostConfig,
    @Inject(OAUTH_PROVIDERS) private readonly providers: OAuthProviders,
    private readonly runs: RunReadRepository,
    private readonly grants: OAuthCredentialRepository,
    private readonly check: CredentialResumeCheck,
    private readonly resolver: ResolveInterruptHandler,
    private readonly sealer: WebhookSecretSealer,
  ) {}

  /**
   * `connectUrl`: only the run's principal, in its tenant, learns that anything waits here; anyone
   * else gets the same `404 not_found` as for a run that does not exist. A credential that already
   * resolves completes the interrupt at once, without a grant.
   */
  async connect(runId: string, nodeId: string, caller: Caller): Promise<ConnectOutcome> {
    const row = await this.runs.findVisible(runId, caller.tenant);
    const pending = row && pendingCredentialOf(row, nodeId);
    if (!pending || pending.owner !== caller.principal) throw ApiError.notFound(NOT_HERE);
    const provider = this.providers.get(pending.data.provider);
    if (!provider) throw ApiError.notFound(`This host is not a client of ${pending.data.provider}.`);
    if (await this.check.resolves(caller.tenant, pending)) {
      await this.resolve(runId, nodeId, caller.tenant, caller.principal, 'authorized');
      return { outcome: 'authorized', provider: provider.id };
    }
    const secrets = newGrantSecrets();
    const grant: PendingGrant = {
      tenant: caller.tenant,
      subject: caller.principal,
      provider: provider.id,
      scopes: pending.data.scopes,
      runId,
      nodeId,
      interruptId: pending.interruptId,
      codeVerifier: secrets.codeVerifier,
    };
    await this.grants.recordGrant(stateHash(secrets.state), grant, new Date(Date.now() + GRANT_TTL_MS));
    const redirectUri = redirectUriOf(this.config.publicUrl, provider.id);
    return { redirect: authorizationUrl(provider, { redirectUri, scopes: pending.data.scopes, secrets }) };
  }

  /**
   * The provider's redirect back. Refused, with no token request and nothing stored: an absent,
   * unknown, used or expired `state` (or one of another provider); an `iss` other than the
   * provider's issuer; a request authenticated as someone other than the Subject the state is bound to.
   */
  async callback(
    providerId: string,
    query: CallbackQuery,
    authenticated: Caller | undefined,
  ): Promise<ConnectOutcome> {
    const provider = this.providers.get(providerId);
    if (!provider) throw ApiError.notFound(`This host is not a client of ${providerId}.`);
    if (typeof query.state !== 'string' || query.state === '')
      throw refused('state', 'the callback carries no state');
    const grant = await this.grants.consumeGrant(stateHash(query.state), provider.id);
    if (!grant) throw refused('state', 'the state is unknown, already used or expired');
    if (authenticated && (authenticated.tenant !== grant.tenant || authenticated.principal !== grant.subject))
      throw new ApiError('forbidden', 'This grant was started by another user; nothing is stored.');
    if (provider.issuer !== undefined && query.iss !== provider.issuer)
      throw refused('iss', `the authorization response is not from ${provider.id}'s issuer`);
    if (query.error !== undefined) {
      if (query.error === 'access_denied') {
        await this.resolve(grant.runId, grant.nodeId, grant.tenant, grant.subject, 'declined');
        return { outcome: 'declined', provider: provider.id };
      }
      throw refused('error', `the provider answered ${query.error}`);
    }
    if (typeof query.code !== 'string' || query.code === '')
      throw refused('code', 'the callback carries no code');
    const tokens = await this.exchange(provider.id, query.code, grant);
    const binding = { webhookId: `oauth:${provider.id}:${grant.subject}`, tenant: grant.tenant };
    const granted = typeof tokens.scope === 'string' ? tokens.scope.split(' ').filter(Boolean) : grant.scopes;
    await this.grants.store(grant.tenant, grant.subject, provider.id, granted, {
      accessToken: this.sealer.seal(tokens.access_token, binding),
      ...(typeof tokens.refresh_token === 'string'
        ? { refreshToken: this.sealer.seal(tokens.refresh_token, binding) }
        : {}),
      ...(typeof tokens.expires_in === 'number'
        ? { expiresAt: new Date(Date.now() + tokens.expires_in * 1000) }
        : {}),
    });
    await this.resolve(grant.runId, grant.nodeId, grant.tenant, grant.subject, 'authorized');
    return { outcome: 'authorized', provider: provider.id };
  }

  /** The token request (RFC 6749 §4.1.3 with the PKCE verifier); the code and tokens are never logged. */
  private async exchange(providerId: string, code: string, grant: PendingGrant): Promise<TokenAnswer> {
    const provider = this.providers.get(providerId)!;
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUriOf(this.config.publicUrl, provider.id),
      client_id: provider.clientId,
      code_verifier: grant.codeVerifier,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (provider.clientSecret !== undefined) {
      const basic = `${encodeURIComponent(provider.clientId)}:${encodeURIComponent(provider.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    }
    let answer: Response;
    try {
      answer = await fetch(provider.tokenUrl, { method: 'POST', headers, body, redirect: 'error' });
    } catch {
      throw new ApiError('unavailable', `The token endpoint of ${provider.id} did not answer.`);
    }
    const json = (await answer.json().catch(() => ({}))) as Partial<TokenAnswer> & { error?: unknown };
    if (!answer.ok || typeof json.access_token !== 'string') {
      this.logger.warn(
        `token request to ${provider.id} refused: ${answer.status} ${typeof json.error === 'string' ? json.error : ''}`,
      );
      throw refused('code', `${provider.id} refused the authorization code`);
    }
    return json as TokenAnswer;
  }

  private async resolve(
    runId: string,
    nodeId: string,
    tenant: string,
    principal: string,
    outcome: 'authorized' | 'declined',
  ): Promise<void> {
    const owner: Caller = {
      keyId: 'oauth-connect',
      tenant,
      principal,
      scopes: new Set(['approvals:respond']),
    };
    await this.resolver.handle(runId, nodeId, { outcome }, 'api', owner);
  }
}

interface TokenAnswer {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly scope?: string;
  readonly expires_in?: number;
}

function refused(field: string, message: string): ApiError {
  return ApiError.validation(
    `The authorization callback is refused: ${message}; nothing is stored.`,
    [{ path: `/${field}`, message }],
    { field },
  );
}
