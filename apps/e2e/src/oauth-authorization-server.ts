import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One authorization request the server saw, as its query carried it. */
export interface SeenAuthorization {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly state: string;
  readonly codeChallenge: string;
  readonly codeChallengeMethod: string;
}

/** One token request the server saw, and whether it issued tokens for it. */
export interface SeenTokenRequest {
  readonly code: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly issued: boolean;
}

/**
 * A small OAuth 2.1 authorization server for the tests (no outside network): the authorization-code
 * grant with PKCE, `S256` only (OAuth 2.1 §7.5.1.1 removes `plain`), exact redirect URIs, single-use
 * codes, a confidential client (HTTP Basic), and RFC 9207 `iss` on every authorization response.
 * `GET /authorize` answers as the user would: `approve` (the default) redirects with a code,
 * `deny` with `error=access_denied`. It counts every request so a test can assert that none was made.
 */
export class TestAuthorizationServer {
  readonly authorizations: SeenAuthorization[] = [];
  readonly tokenRequests: SeenTokenRequest[] = [];
  /** Issued access tokens (what must never appear in the host's events or logs). */
  readonly accessTokens: string[] = [];
  /** How `/authorize` answers. */
  userAnswer: 'approve' | 'deny' = 'approve';
  private readonly codes = new Map<
    string,
    { challenge: string; redirectUri: string; scope: string; used: boolean }
  >();

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    private readonly client: {
      readonly id: string;
      readonly secret: string;
      readonly redirectUris: readonly string[];
    },
  ) {}

  /** Starts the server on a free port of 127.0.0.1 for one client and its registered redirect URIs. */
  static async start(client: {
    readonly id: string;
    readonly secret: string;
    readonly redirectUris: readonly string[];
  }): Promise<TestAuthorizationServer> {
    const handlers: ((req: IncomingMessage, res: ServerResponse) => Promise<void>)[] = [];
    const server = createServer((req, res) => {
      void handlers[0]!(req, res).catch(() => send(res, 500, { error: 'server_error' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const self = new TestAuthorizationServer(server, `http://127.0.0.1:${port}`, client);
    handlers.push((req, res) => self.handle(req, res));
    return self;
  }

  get authUrl(): string {
    return `${this.issuer}/authorize`;
  }

  get tokenUrl(): string {
    return `${this.issuer}/token`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (req.method === 'GET' && url.pathname === '/authorize') return this.authorize(url.searchParams, res);
    if (req.method === 'POST' && url.pathname === '/token') return this.token(req, res);
    send(res, 404, { error: 'not_found' });
  }

  private authorize(q: URLSearchParams, res: ServerResponse): void {
    const seen: SeenAuthorization = {
      clientId: q.get('client_id') ?? '',
      redirectUri: q.get('redirect_uri') ?? '',
      scope: q.get('scope') ?? '',
      state: q.get('state') ?? '',
      codeChallenge: q.get('code_challenge') ?? '',
      codeChallengeMethod: q.get('code_challenge_method') ?? '',
    };
    this.authorizations.push(seen);
    // No redirect to an unregistered URI (OAuth 2.1 §4.1.2.1): an error page instead.
    if (seen.clientId !== this.client.id || !this.client.redirectUris.includes(seen.redirectUri))
      return send(res, 400, {
        error: 'invalid_request',
        error_description: 'unknown client or redirect_uri',
      });
    const back = new URL(seen.redirectUri);
    back.searchParams.set('state', seen.state);
    back.searchParams.set('iss', this.issuer);
    if (
      q.get('response_type') !== 'code' ||
      seen.codeChallengeMethod !== 'S256' ||
      seen.codeChallenge === ''
    ) {
      back.searchParams.set('error', 'invalid_request');
    } else if (this.userAnswer === 'deny') {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(16).toString('base64url');
      this.codes.set(code, {
        challenge: seen.codeChallenge,
        redirectUri: seen.redirectUri,
        scope: seen.scope,
        used: false,
      });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await bodyOf(req));
    const code = form.get('code') ?? '';
    const codeVerifier = form.get('code_verifier') ?? '';
    const redirectUri = form.get('redirect_uri') ?? '';
    const grant = this.codes.get(code);
    const basic = `Basic ${Buffer.from(`${this.client.id}:${this.client.secret}`).toString('base64')}`;
    const ok =
      req.headers.authorization === basic &&
      form.get('grant_type') === 'authorization_code' &&
      grant !== undefined &&
      !grant.used &&
      grant.redirectUri === redirectUri &&
      createHash('sha256').update(codeVerifier).digest('base64url') === grant.challenge;
    this.tokenRequests.push({ code, codeVerifier, redirectUri, issued: ok });
    if (!ok) return send(res, 400, { error: 'invalid_grant' });
    grant.used = true;
    const accessToken = `at_${randomBytes(24).toString('base64url')}`;
    this.accessTokens.push(accessToken);
    send(res, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: `rt_${randomBytes(24).toString('base64url')}`,
      scope: grant.scope,
    });
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
