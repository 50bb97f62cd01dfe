import { startEmbeddedHost, TEST_KEYS, waitFor, type RunningHost } from '@openwop/testing';
import { query, sendJson, workflowDefinition, type HeadedAnswer } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';
import { TestAuthorizationServer } from './oauth-authorization-server';

// The credential interrupt (issue 30 item 5; RFC 0199 §A, §C; v2 oauth.md), both modes, real
// Postgres (and Kafka in the distributed one), against a local OAuth 2.1 authorization server the
// test starts. `core.credential` suspends a major-2 run on a `credential` interrupt whose connectUrl
// is under the host's https public URL; only the run's principal can open it; the grant runs PKCE
// S256 with a single-use, Subject-bound state and the provider's issuer checked; the credential is
// stored sealed and the interrupt resolved `authorized`. A caller's `authorized` is refused while no
// credential resolves; `declined` fails the node `connector_auth_declined`. No interrupt may ask for
// credential material: such a workflow is refused at registration.

const PUBLIC = 'https://wop.test';
const CLIENT = { id: 'wop-client', secret: 'client-secret-' + 'x'.repeat(16) };
const OWNER = TEST_KEYS.t1;
const SOMEONE_ELSE = TEST_KEYS.t1b; // the same tenant, another principal

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('the credential interrupt, %s mode', (mode) => {
  let as: TestAuthorizationServer;
  let hut: HostUnderTest;
  const workflowId = `credential-${mode}`;
  const gw = () => hut.host.gateways[0]!;
  /** The host's public URL as this test reaches it (the https front is the gateway itself here). */
  const local = (url: string) => (url.startsWith(PUBLIC) ? gw() + url.slice(PUBLIC.length) : url);
  const call = (method: string, path: string, body?: unknown, key: string | undefined = OWNER, v2 = true) =>
    sendJson(
      `${gw()}${path}`,
      method,
      {
        accept: 'application/json',
        ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}),
        ...(v2 ? { 'openwop-version': '2' } : {}),
      },
      body,
    );
  /** One GET that does not follow a redirect: the status, `Location` and body. */
  const visit = async (url: string, key?: string) => {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: {
        accept: 'application/json',
        ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}),
      },
    });
    const text = await res.text();
    return {
      status: res.status,
      location: res.headers.get('location') ?? '',
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    };
  };
  const statusOf = async (runId: string) =>
    (await call('GET', `/v1/runs/${runId}`, undefined, OWNER, false)).body;
  const ended = (runId: string, status: string) =>
    waitFor(async () => ((await statusOf(runId)).status === status ? true : undefined), {
      timeoutMs: 30_000,
      what: `run ${runId} ${status}`,
    });

  /** A major-2 run of the workflow, waiting on its credential interrupt: its id and the interrupt's data. */
  async function waiting(): Promise<{ runId: string; data: Record<string, unknown> }> {
    const created = await call('POST', '/runs', { workflowId });
    expect(created.status).toBe(201);
    const runId = created.body.runId as string;
    const data = await waitFor(
      async () => {
        const s = await statusOf(runId);
        const i = s.interrupt as { kind?: string; data?: Record<string, unknown> } | undefined;
        return s.status === 'waiting-input' && i?.kind === 'credential' ? i.data : undefined;
      },
      { timeoutMs: 30_000, what: `run ${runId} waiting on its credential interrupt` },
    );
    return { runId, data };
  }

  /** Opens connectUrl as `key` and follows the user agent to the provider: the callback URL it is sent back to. */
  async function authorizeAtProvider(connectUrl: string, key = OWNER): Promise<string> {
    const started = await visit(local(connectUrl), key);
    expect(started.status).toBe(302);
    const atProvider = await visit(started.location);
    expect(atProvider.status).toBe(302);
    return atProvider.location;
  }

  const logOf = (runId: string) =>
    query<{ doc: unknown }>(hut.db.url, 'SELECT doc FROM run_events WHERE run_id = $1 ORDER BY sequence', [
      runId,
    ]);

  beforeAll(async () => {
    as = await TestAuthorizationServer.start({ ...CLIENT, redirectUris: [`${PUBLIC}/oauth/callback/acme`] });
    const providers = [
      {
        id: 'acme',
        authUrl: as.authUrl,
        tokenUrl: as.tokenUrl,
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
        scopesSupported: ['read', 'write'],
        issuer: as.issuer,
      },
    ];
    hut = await MODES[mode]({ PUBLIC_URL: PUBLIC, WOP_OAUTH_PROVIDERS: JSON.stringify(providers) });
    const registered = await call(
      'POST',
      '/v1/workflows',
      workflowDefinition(
        workflowId,
        [
          { id: 'connect', typeId: 'core.credential', config: { provider: 'acme', scopes: ['read'] } },
          { id: 'after', typeId: 'core.noop' },
        ],
        [['connect', 'after']],
      ),
      OWNER,
      false,
    );
    expect(registered.status).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await hut?.stop();
    await as?.stop();
  }, 60_000);

  it('v2 discovery advertises oauth.credentialInterrupt and the provider, without its client secret; v1 lists eight kinds', async () => {
    const v2 = await call('GET', '/.well-known/openwop', undefined, undefined);
    expect(v2.body.oauth).toMatchObject({
      credentialInterrupt: true,
      grants: ['authorization_code'],
      providers: [{ id: 'acme', issuer: as.issuer, scopesSupported: ['read', 'write'] }],
    });
    expect(JSON.stringify(v2.body)).not.toContain(CLIENT.secret);
    const v1 = await call('GET', '/.well-known/openwop', undefined, undefined, false);
    const kinds = (v1.body.extensions as { interrupts: { kinds: string[] } }).interrupts.kinds;
    expect(kinds).toHaveLength(8);
    expect(kinds).not.toContain('credential');
  });

  it('refuses at registration an interrupt asking for credential material, and an unknown provider or scope', async () => {
    const refusedAt = async (nodes: Parameters<typeof workflowDefinition>[1]): Promise<HeadedAnswer> =>
      call('POST', '/v1/workflows', workflowDefinition(`refused-${mode}`, nodes), OWNER, false);
    const asksForKey = await refusedAt([
      {
        id: 'ask',
        typeId: 'core.clarificationGate',
        config: { questions: [{ id: 'apiKey', question: 'Your API key?' }] },
      },
    ]);
    expect([asksForKey.status, asksForKey.body.error]).toEqual([400, 'validation_error']);
    expect(JSON.stringify((asksForKey.body.details as { errors: unknown[] }).errors)).toContain(
      '/nodes/0/config/questions/0/id',
    );
    const writeOnly = await refusedAt([
      {
        id: 'ask',
        typeId: 'core.clarificationGate',
        config: {
          questions: [
            {
              id: 'q',
              question: 'Sign in',
              schema: { type: 'object', properties: { p: { type: 'string', writeOnly: true } } },
            },
          ],
        },
      },
    ]);
    expect([writeOnly.status, writeOnly.body.error]).toEqual([400, 'validation_error']);
    const unknown = await refusedAt([
      { id: 'c', typeId: 'core.credential', config: { provider: 'nope', scopes: ['read'] } },
    ]);
    expect([unknown.status, unknown.body.error]).toEqual([400, 'oauth_provider_unsupported']);
    const scope = await refusedAt([
      { id: 'c', typeId: 'core.credential', config: { provider: 'acme', scopes: ['admin'] } },
    ]);
    expect([scope.status, scope.body.error]).toEqual([400, 'oauth_scope_unsupported']);
    // Nothing was registered.
    expect((await call('GET', `/v1/workflows/refused-${mode}`, undefined, OWNER, false)).status).toBe(404);
  });

  it("refuses authorized in the interrupt service when the gateway's snapshot does not show the interrupt yet, on every route; declined still goes", async () => {
    const { runId } = await waiting();
    const linkToken = ((await statusOf(runId)).interrupt as { interruptToken: string }).interruptToken;
    // The projection lags the interrupt service (the distributed race): the gateway cannot see the
    // interrupt, so its own check does not run and it sends no attestation (ADR 0044).
    await query(hut.db.url, "UPDATE runs SET snapshot = snapshot - 'interrupt' WHERE run_id = $1", [runId]);
    const refusal = (body: Record<string, unknown>) => [
      body.error,
      (body.details as { field?: string } | undefined)?.field,
    ];
    const api = await call('POST', `/runs/${runId}/interrupts/connect`, {
      resumeValue: { outcome: 'authorized' },
    });
    expect([api.status, ...refusal(api.body)]).toEqual([400, 'validation_error', 'resumeValue']);
    const byToken = await call(
      'POST',
      `/interrupts/${linkToken}`,
      { resumeValue: { outcome: 'authorized' } },
      undefined,
    );
    expect([byToken.status, ...refusal(byToken.body)]).toEqual([400, 'validation_error', 'resumeValue']);
    const bulk = await call(
      'POST',
      '/v1/interrupts:bulk-resolve',
      { items: [{ runId, nodeId: 'connect', resumeValue: { outcome: 'authorized' } }] },
      OWNER,
      false,
    );
    expect((bulk.body.results as { ok: boolean; error?: { code: string } }[])[0]).toMatchObject({
      ok: false,
      error: { code: 'validation_error' },
    });
    // Nothing changed in the log: no interrupt.resolved.
    const types = (await logOf(runId)).map((r) => (r.doc as { type: string }).type);
    expect(types).not.toContain('interrupt.resolved');
    // declined needs no attestation.
    const declined = await call('POST', `/runs/${runId}/interrupts/connect`, {
      resumeValue: { outcome: 'declined' },
    });
    expect(declined.status).toBe(200);
    await ended(runId, 'failed');
  }, 120_000);

  it('connects only for the run principal, with PKCE S256 and a single-use state bound to it, and resolves authorized', async () => {
    const { runId, data } = await waiting();
    expect(data).toEqual({
      provider: 'acme',
      scopes: ['read'],
      reason: 'missing',
      connectUrl: `${PUBLIC}/oauth/connect/${runId}/connect`,
    });
    // A caller's `authorized` is refused while no credential resolves; nothing changes.
    const early = await call('POST', `/runs/${runId}/interrupts/connect`, {
      resumeValue: { outcome: 'authorized' },
    });
    expect([early.status, early.body.error, (early.body.details as { field?: string }).field]).toEqual([
      400,
      'validation_error',
      'resumeValue',
    ]);
    // The same on the signed token and in a bulk: every route that resolves re-checks.
    const linkToken = ((await statusOf(runId)).interrupt as { interruptToken: string }).interruptToken;
    const byToken = await call(
      'POST',
      `/interrupts/${linkToken}`,
      { resumeValue: { outcome: 'authorized' } },
      undefined,
    );
    expect([byToken.status, byToken.body.error]).toEqual([400, 'validation_error']);
    const bulk = await call(
      'POST',
      '/v1/interrupts:bulk-resolve',
      { items: [{ runId, nodeId: 'connect', resumeValue: { outcome: 'authorized' } }] },
      OWNER,
      false,
    );
    expect((bulk.body.results as { ok: boolean; error?: { code: string } }[])[0]).toMatchObject({
      ok: false,
      error: { code: 'validation_error' },
    });
    // A resume value carrying anything else fails the fixed resumeSchema.
    const smuggled = await call('POST', `/runs/${runId}/interrupts/connect`, {
      resumeValue: { outcome: 'authorized', token: 'x' },
    });
    expect([smuggled.status, smuggled.body.error]).toEqual([400, 'validation_error']);
    expect((await statusOf(runId)).status).toBe('waiting-input');

    // Not pre-authenticated, and nobody else's: 401 without a key, the same 404 as a missing run for another user.
    expect((await visit(local(data.connectUrl as string))).status).toBe(401);
    const other = await visit(local(data.connectUrl as string), SOMEONE_ELSE);
    const missing = await visit(`${gw()}/oauth/connect/no-such-run/connect`, SOMEONE_ELSE);
    expect([other.status, other.body.error, other.body.message]).toEqual([
      404,
      'not_found',
      missing.body.message,
    ]);
    expect(as.authorizations).toHaveLength(0);

    // The owner is sent to the provider with PKCE S256, a fresh state and the provider's fixed redirect URI.
    const callback = await authorizeAtProvider(data.connectUrl as string);
    const seen = as.authorizations.at(-1)!;
    expect(seen).toMatchObject({
      clientId: CLIENT.id,
      redirectUri: `${PUBLIC}/oauth/callback/acme`,
      scope: 'read',
    });
    expect(seen.codeChallengeMethod).toBe('S256');
    expect(Buffer.from(seen.state, 'base64url').length).toBeGreaterThanOrEqual(16);

    // Refused with no token request: a forged state, a wrong iss, a callback authenticated as someone else.
    const forged = new URL(local(callback));
    forged.searchParams.set('state', 'forged');
    expect((await visit(forged.toString())).status).toBe(400);
    const wrongIss = new URL(local(callback));
    wrongIss.searchParams.set('iss', 'http://127.0.0.1:1');
    expect((await visit(wrongIss.toString())).status).toBe(400);
    // The wrong-iss callback consumed that state; a new grant for the next legs.
    const second = await authorizeAtProvider(data.connectUrl as string);
    const asOther = await visit(local(second), SOMEONE_ELSE);
    expect([asOther.status, asOther.body.error]).toEqual([403, 'forbidden']);
    expect(as.tokenRequests).toHaveLength(0);

    // The owner's own grant completes: one token request with the verifier, the run goes on.
    const third = await authorizeAtProvider(data.connectUrl as string);
    const done = await visit(local(third));
    expect([done.status, done.body.outcome]).toEqual([200, 'authorized']);
    expect(as.tokenRequests.map((t) => t.issued)).toEqual([true]);
    await ended(runId, 'completed');
    // The same callback again: the state is used up; no second token request.
    expect((await visit(local(third))).status).toBe(400);
    expect(as.tokenRequests).toHaveLength(1);

    // Events carry no material: neither the access token nor the code or verifier; the store holds it sealed.
    const log = JSON.stringify(await logOf(runId));
    const token = as.accessTokens.at(-1)!;
    expect(log).not.toContain(token);
    expect(log).not.toContain(as.tokenRequests[0]!.codeVerifier);
    const resolved = (await logOf(runId))
      .map((r) => r.doc as { type: string; payload: Record<string, unknown> })
      .find((e) => e.type === 'interrupt.resolved');
    expect(resolved?.payload.resumeValue).toEqual({ outcome: 'authorized' });
    const stored = await query<{ sealed: string; scopes: string[]; subject: string }>(
      hut.db.url,
      'SELECT access_token_sealed AS sealed, scopes, subject FROM oauth_credentials WHERE provider = $1',
      ['acme'],
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ scopes: ['read'], subject: 'key-t1' });
    expect(stored[0]!.sealed).not.toContain(token);
  }, 120_000);

  it('with a credential already stored, a caller authorized is accepted and connectUrl completes at once', async () => {
    await waitFor(
      async () =>
        (await query(hut.db.url, 'SELECT 1 FROM oauth_credentials WHERE provider = $1', ['acme'])).length >
          0 || undefined,
      { timeoutMs: 60_000, what: 'the credential of the previous test' },
    );
    const first = await waiting();
    const answered = await call('POST', `/runs/${first.runId}/interrupts/connect`, {
      resumeValue: { outcome: 'authorized' },
    });
    expect(answered.status).toBe(200);
    await ended(first.runId, 'completed');
    const second = await waiting();
    const before = as.authorizations.length;
    const opened = await visit(local(second.data.connectUrl as string), OWNER);
    expect([opened.status, opened.body.outcome]).toEqual([200, 'authorized']);
    expect(as.authorizations).toHaveLength(before);
    await ended(second.runId, 'completed');
  }, 120_000);

  it('declined fails the node connector_auth_declined, by a caller or at the provider', async () => {
    const byCaller = await waiting();
    const declined = await call('POST', `/runs/${byCaller.runId}/interrupts/connect`, {
      resumeValue: { outcome: 'declined' },
    });
    expect(declined.status).toBe(200);
    await ended(byCaller.runId, 'failed');
    const failed = (await logOf(byCaller.runId))
      .map((r) => r.doc as { type: string; payload: { error?: { code: string } } })
      .find((e) => e.type === 'node.failed');
    expect(failed?.payload.error?.code).toBe('connector_auth_declined');

    const atProvider = await waiting();
    await query(hut.db.url, 'DELETE FROM oauth_credentials WHERE provider = $1', ['acme']);
    as.userAnswer = 'deny';
    try {
      const callback = await authorizeAtProvider(atProvider.data.connectUrl as string);
      const answer = await visit(local(callback));
      expect([answer.status, answer.body.outcome]).toEqual([200, 'declined']);
    } finally {
      as.userAnswer = 'approve';
    }
    await ended(atProvider.runId, 'failed');
  }, 120_000);
});

describe('the credential interrupt on PGlite (the embedded default)', () => {
  let as: TestAuthorizationServer;
  let host: RunningHost;
  const gw = () => host.gateways[0]!;
  const local = (url: string) => gw() + url.slice(PUBLIC.length);
  const call = (method: string, path: string, body?: unknown) =>
    sendJson(`${gw()}${path}`, method, { authorization: `Bearer ${OWNER}`, 'openwop-version': '2' }, body);
  const visit = async (url: string, key?: string) => {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: key !== undefined ? { authorization: `Bearer ${key}` } : {},
    });
    const text = await res.text();
    return { status: res.status, location: res.headers.get('location') ?? '', body: text };
  };

  beforeAll(async () => {
    as = await TestAuthorizationServer.start({ ...CLIENT, redirectUris: [`${PUBLIC}/oauth/callback/acme`] });
    const providers = [
      {
        id: 'acme',
        authUrl: as.authUrl,
        tokenUrl: as.tokenUrl,
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
      },
    ];
    host = await startEmbeddedHost({
      env: { PUBLIC_URL: PUBLIC, WOP_OAUTH_PROVIDERS: JSON.stringify(providers) },
    });
    const definition = workflowDefinition('credential-pglite', [
      { id: 'connect', typeId: 'core.credential', config: { provider: 'acme', scopes: ['read'] } },
    ]);
    expect((await call('POST', '/workflows', definition)).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await host?.stop();
    await as?.stop();
  }, 60_000);

  it('runs the grant to the end and completes the run', async () => {
    const created = await call('POST', '/runs', { workflowId: 'credential-pglite' });
    const runId = created.body.runId as string;
    const connectUrl = await waitFor(
      async () => {
        const s = (await call('GET', `/runs/${runId}`)).body;
        return s.status === 'waiting-input'
          ? (s.interrupt as { data: { connectUrl: string } }).data.connectUrl
          : undefined;
      },
      { timeoutMs: 20_000, what: `run ${runId} waiting on its credential interrupt` },
    );
    const early = await call('POST', `/runs/${runId}/interrupts/connect`, {
      resumeValue: { outcome: 'authorized' },
    });
    expect(early.status).toBe(400);
    const started = await visit(local(connectUrl), OWNER);
    const atProvider = await visit(started.location);
    const done = await visit(local(atProvider.location));
    expect(done.status).toBe(200);
    await waitFor(
      async () => ((await call('GET', `/runs/${runId}`)).body.status === 'completed' ? true : undefined),
      {
        timeoutMs: 20_000,
        what: `run ${runId} completed`,
      },
    );
    expect(as.tokenRequests.map((t) => t.issued)).toEqual([true]);
  }, 60_000);
});
