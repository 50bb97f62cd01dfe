import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  assertErrorEnvelope,
  Topics,
  type CommandEnvelope,
  type CommandReply,
  type MintTokensResult,
} from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { configureGatewayApp } from '../configure-gateway-app';
import { GatewayModule } from '../gateway.module';

// The gateway's signed-token surface over the real in-process platform and a fresh Postgres. A
// fake token service answers the token command topic (mint, inspect, authorize) and a fake
// interrupt service the interrupt command topic, so every verdict either can send is mapped through
// the gateway's one error table; the snapshot shows what the fake token service mints.

const API_KEY = 'gw_tok_t1_' + 'a'.repeat(24);
/** A key that may resolve (approvals:respond) in the runs' tenant. */
const RESOLVER_KEY = 'gw_tok_t1r_' + 'b'.repeat(24);
/** A key holding approvals:respond in another tenant. */
const OTHER_TENANT_KEY = 'gw_tok_t2r_' + 'c'.repeat(24);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const tokenFor = (runId: string, tag: string) =>
  `${b64({ v: 1, alg: 'HS256', kid: 'k1', runId, tag })}.${Buffer.alloc(32, 1).toString('base64url')}`;

let db: TestDatabase;
let platform: Platform;
let app: NestExpressApplication;
let base: string;
const logged: string[] = [];
const received: { key: string; command: CommandEnvelope }[] = [];
/** What `token.mint` answers, by run: its tokens, none, or a refusal code. */
const mintable = new Map<string, MintTokensResult | string>();
/** What `interrupt.resolve` answers, by run: a refusal code; `resolved` otherwise. */
const interruptVerdicts = new Map<string, string>();
const savedKeys = process.env.WOP_API_KEYS;

/** Answers `token.mint` from {@link mintable}; a token command by the token's `tag`: `ok`, or the error code to refuse with. */
async function fakeTokenService(message: IncomingMessage): Promise<CommandReply> {
  const command = message.value as CommandEnvelope<
    string,
    { token: string; resumeValue?: unknown; runId: string }
  >;
  received.push({ key: message.key, command });
  if (command.type === 'token.mint') {
    const answer = mintable.get(command.data.runId) ?? {};
    return typeof answer === 'string'
      ? { ok: false, error: { code: answer, message: `refused: ${answer}` } }
      : { ok: true, data: answer };
  }
  const [payload] = command.data.token.split('.');
  const { tag, runId, kind } = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as {
    tag: string;
    runId: string;
    kind?: string;
  };
  if (tag !== 'ok') return { ok: false, error: { code: tag, message: `refused: ${tag}` } };
  const conversation = kind === 'conversation.exchange';
  return command.type === 'token.inspect'
    ? {
        ok: true,
        data: {
          runId,
          nodeId: conversation ? 'talk' : 'gate',
          interruptId: `${runId}:${conversation ? 'talk' : 'gate'}:0`,
          kind: kind ?? 'approval',
          intent: 'resolve',
          ...(conversation ? { data: { conversationId: `${runId}:talk:0`, prompt: 'Plan a trip' } } : {}),
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
      }
    : {
        ok: true,
        data: {
          runId,
          nodeId: 'gate',
          interruptId: `${runId}:gate:0`,
          tenant: 't1',
          kid: 'k1',
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
      };
}

async function fakeInterruptService(message: IncomingMessage): Promise<CommandReply> {
  const command = message.value as CommandEnvelope<
    string,
    { runId: string; nodeId: string; interruptId: string }
  >;
  received.push({ key: message.key, command });
  const code = interruptVerdicts.get(command.data.runId);
  if (code) return { ok: false, error: { code, message: `refused: ${code}`, details: { why: code } } };
  const { runId, nodeId, interruptId } = command.data;
  return { ok: true, data: { runId, nodeId, interruptId, status: 'resolved' } };
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; auth?: boolean | string } = {},
) {
  const headers: Record<string, string> = {};
  if (options.auth)
    headers.authorization = `Bearer ${typeof options.auth === 'string' ? options.auth : API_KEY}`;
  const body = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  db = await createTestDatabase('gateway_tokens');
  process.env.WOP_API_KEYS = JSON.stringify([
    { key: API_KEY, scopes: ['runs:read'], tenant: 't1', id: 'key-t1' },
    { key: RESOLVER_KEY, scopes: ['runs:read', 'approvals:respond'], tenant: 't1', id: 'key-t1r' },
    { key: OTHER_TENANT_KEY, scopes: ['runs:read', 'approvals:respond'], tenant: 't2', id: 'key-t2r' },
  ]);
  platform = await startPlatform(
    readHostConfig('embedded', {
      OPENWOP_DATA_DIR: 'memory',
      DATABASE_URL: db.url,
      COMMAND_TIMEOUT_MS: '1500',
      PUBLIC_URL: 'https://wop.example/',
      KAFKA_PARTITIONS: '2',
    }),
  );
  await platform.bus.serve({
    group: 'token-commands',
    topic: Topics.tokenCommands,
    handler: fakeTokenService,
  });
  await platform.bus.serve({
    group: 'interrupt',
    topic: Topics.interruptCommands,
    handler: fakeInterruptService,
  });
  const sink = (level: string) => (message: unknown) => logged.push(`${level} ${String(message)}`);
  app = await NestFactory.create<NestExpressApplication>(rootModule(platform, [GatewayModule]), {
    logger: {
      log: sink('log'),
      error: sink('error'),
      warn: sink('warn'),
      debug: sink('debug'),
      verbose: sink('verbose'),
    },
  });
  configureGatewayApp(app);
  await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await db?.drop();
  if (savedKeys === undefined) delete process.env.WOP_API_KEYS;
  else process.env.WOP_API_KEYS = savedKeys;
}, 30_000);

beforeEach(() => {
  received.length = 0;
});

describe('/v1/interrupts/{token} (no API key)', () => {
  it('GET inspects: a token.inspect keyed by the run the token names, as the token bearer', async () => {
    const token = tokenFor('run-a', 'ok');
    const res = await call('GET', `/v1/interrupts/${token}`);
    expect(res).toEqual({ status: 200, json: expect.objectContaining({ runId: 'run-a', kind: 'approval' }) });
    expect(received).toEqual([
      {
        key: 'run-a',
        command: expect.objectContaining({
          type: 'token.inspect',
          // The bearer's pseudo key id rides along; the token service states the link's own key (token:<kid>).
          actor: { tenant: '*token*', principal: 'token', keyId: 'signed-token' },
          data: { token },
        }),
      },
    ]);
  });

  it('POST resolves with {resumeValue} or with the value itself as the body: token.authorize, then interrupt.resolve as the run owner', async () => {
    const token = tokenFor('run-b', 'ok');
    const a = await call('POST', `/v1/interrupts/${token}`, { body: { resumeValue: { action: 'accept' } } });
    const b = await call('POST', `/v1/interrupts/${token}`, { body: { action: 'accept' } });
    for (const res of [a, b])
      expect(res).toEqual({
        status: 200,
        json: { runId: 'run-b', nodeId: 'gate', interruptId: 'run-b:gate:0', status: 'resolved' },
      });
    const authorize = {
      key: 'run-b',
      command: expect.objectContaining({
        type: 'token.authorize',
        actor: { tenant: '*token*', principal: 'token', keyId: 'signed-token' },
        data: { token },
      }),
    };
    const resolve = {
      key: 'run-b',
      command: expect.objectContaining({
        type: 'interrupt.resolve',
        // The run's owner, as the token service named it; the link's key is its principal and key id.
        actor: { tenant: 't1', principal: 'token:k1', keyId: 'token:k1' },
        data: {
          runId: 'run-b',
          nodeId: 'gate',
          interruptId: 'run-b:gate:0',
          via: 'token',
          resumeValue: { action: 'accept' },
        },
      }),
    };
    expect(received).toEqual([authorize, resolve, authorize, resolve]);
    expect(JSON.stringify(received[1])).not.toContain(token);
  });

  it("the interrupt service's verdicts: a refusal is relayed; interrupt_cancelled is the token surface's 409", async () => {
    interruptVerdicts.set('run-b2', 'correlation_mismatch');
    interruptVerdicts.set('run-b3', 'interrupt_cancelled');
    const mismatch = await call('POST', `/v1/interrupts/${tokenFor('run-b2', 'ok')}`, { body: {} });
    expect({ status: mismatch.status, json: mismatch.json }).toEqual({
      status: 422,
      json: expect.objectContaining({
        error: 'correlation_mismatch',
        details: { why: 'correlation_mismatch' },
      }),
    });
    const cancelled = await call('POST', `/v1/interrupts/${tokenFor('run-b3', 'ok')}`, { body: {} });
    expect({ status: cancelled.status, json: cancelled.json }).toEqual({
      status: 409,
      json: expect.objectContaining({
        error: 'interrupt_already_resolved',
        details: { interruptId: 'run-b3:gate:0' },
      }),
    });
    assertErrorEnvelope(cancelled.json);
  });

  it('a refused token.authorize sends nothing to the interrupt service', async () => {
    expect(
      (await call('POST', `/v1/interrupts/${tokenFor('run-b4', 'forbidden')}`, { body: {} })).status,
    ).toBe(403);
    expect(received.map((r) => r.command.type)).toEqual(['token.authorize']);
  });

  it.each([
    ['validation_error', 400],
    ['interrupt_not_found', 404],
    ['forbidden', 403],
    ['interrupt_already_resolved', 409],
    ['interrupt_expired', 410],
    ['correlation_mismatch', 422],
    ['unavailable', 503],
  ])('a %s verdict is %i with the error envelope', async (code, status) => {
    for (const method of ['GET', 'POST']) {
      const res = await call(
        method,
        `/v1/interrupts/${tokenFor('run-c', code)}`,
        method === 'POST' ? { body: {} } : {},
      );
      expect({ status: res.status, error: res.json.error }).toEqual({ status, error: code });
      assertErrorEnvelope(res.json);
    }
  });

  it("an interrupt_token_invalid verdict is 401 under major 2 and v1's 404 interrupt_not_found on /v1/ (identity.md §4, ADR 0007)", async () => {
    for (const method of ['GET', 'POST']) {
      const token = tokenFor('run-c', 'interrupt_token_invalid');
      const body = method === 'POST' ? { body: { resumeValue: 1 } } : {};
      const v2 = await call(method, `/interrupts/${token}`, body);
      expect({ status: v2.status, error: v2.json.error }).toEqual({
        status: 401,
        error: 'interrupt_token_invalid',
      });
      assertErrorEnvelope(v2.json);
      const v1 = await call(method, `/v1/interrupts/${token}`, body);
      expect({ status: v1.status, error: v1.json.error, message: v1.json.message }).toEqual({
        status: 404,
        error: 'interrupt_not_found',
        message: 'No interrupt is known for this token.',
      });
      assertErrorEnvelope(v1.json);
    }
  });

  it('a token that does not decode is 404 at the gateway, like any token that does not verify (401 under major 2); nothing is sent', async () => {
    for (const token of [
      'abc',
      'a.b.c',
      `tok_${Buffer.alloc(32, 5).toString('base64url')}`,
      `${Buffer.from('x').toString('base64url')}.AAAA`,
      `${b64({ nodeId: 'n' })}.AAAA`,
    ]) {
      const res = await call('GET', `/v1/interrupts/${encodeURIComponent(token)}`);
      expect({ status: res.status, error: res.json.error }).toEqual({
        status: 404,
        error: 'interrupt_not_found',
      });
      expect(JSON.stringify(res.json)).not.toContain(token.length > 4 ? token : '\u0000');
      const v2 = await call('GET', `/interrupts/${encodeURIComponent(token)}`);
      expect({ status: v2.status, error: v2.json.error }).toEqual({
        status: 401,
        error: 'interrupt_token_invalid',
      });
    }
    expect((await call('POST', `/v1/interrupts/${tokenFor('run-d', 'ok')}`, { raw: '[1]' })).status).toBe(
      400,
    );
    expect(received).toHaveLength(0);
  });

  it('an unexpected failure is 500 and its log line carries 8 characters of the token, never all of it', async () => {
    const token = tokenFor('run-e', 'no_such_code');
    const res = await call('GET', `/v1/interrupts/${token}`);
    expect(res.status).toBe(500);
    const line = logged.find((l) => l.startsWith('error') && l.includes('/v1/interrupts/'));
    expect(line).toContain(`/v1/interrupts/${token.slice(0, 8)}…`);
    expect(logged.join('\n')).not.toContain(token);
  });

  it('discovery lists both routes without a scope', async () => {
    const res = await call('GET', '/.well-known/openwop');
    expect(res.json.endpoints).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/v1/interrupts/{token}' },
        { method: 'POST', path: '/v1/interrupts/{token}' },
      ]),
    );
  });
});

describe('GET /v1/runs/{runId} shows the signed tokens on the pending interrupt', () => {
  const future = new Date(Date.now() + 3_600_000).toISOString();
  async function seedRun(runId: string, tokens?: { invalidated: boolean; expiresAt?: string }) {
    const interruptId = `${runId}:gate:0`;
    if (tokens) {
      mintable.set(
        runId,
        tokens.invalidated
          ? {}
          : {
              tokens: {
                resolveToken: `RES-${runId}.mac`,
                inspectToken: `INS-${runId}.mac`,
                expiresAt: tokens.expiresAt ?? future,
              },
            },
      );
    }
    const snapshot = {
      runId,
      workflowId: 'wf',
      status: 'waiting-external',
      owner: { tenant: 't1' },
      currentNodeId: 'gate',
      interrupt: {
        interruptId,
        nodeId: 'gate',
        kind: 'external-event',
        key: interruptId,
        data: {},
        requestedAt: '2026-01-01T00:00:00.000Z',
      },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      lastSequence: 2,
    };
    await platform.dataSource.query(
      `INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
       VALUES ($1, 't1', 'wf', 'waiting-external', 'gate', 2, $2, now(), now())`,
      [runId, JSON.stringify(snapshot)],
    );
  }

  it('a key holding approvals:respond: interruptToken, callbackUrl (public URL), inspectToken, inspectUrl and tokenExpiresAt', async () => {
    await seedRun('run-snap-1', { invalidated: false });
    const res = await call('GET', '/v1/runs/run-snap-1', { auth: RESOLVER_KEY });
    // Minted on demand by the token service for the interrupt the snapshot shows pending.
    expect(received).toEqual([
      {
        key: 'run-snap-1',
        command: expect.objectContaining({
          type: 'token.mint',
          data: { runId: 'run-snap-1', interruptId: 'run-snap-1:gate:0' },
        }),
      },
    ]);
    expect(res.json.interrupt).toMatchObject({
      interruptId: 'run-snap-1:gate:0',
      interruptToken: 'RES-run-snap-1.mac',
      callbackUrl: 'https://wop.example/v1/interrupts/RES-run-snap-1.mac',
      inspectToken: 'INS-run-snap-1.mac',
      inspectUrl: 'https://wop.example/v1/interrupts/INS-run-snap-1.mac',
      tokenExpiresAt: future,
    });
  });

  it('a runs:read key without approvals:respond: only the inspect-only token and link', async () => {
    await seedRun('run-snap-4', { invalidated: false });
    const res = await call('GET', '/v1/runs/run-snap-4', { auth: API_KEY });
    expect(res.status).toBe(200);
    expect(res.json.interrupt).toMatchObject({
      inspectToken: 'INS-run-snap-4.mac',
      inspectUrl: 'https://wop.example/v1/interrupts/INS-run-snap-4.mac',
      tokenExpiresAt: future,
    });
    expect(res.json.interrupt).not.toHaveProperty('interruptToken');
    expect(res.json.interrupt).not.toHaveProperty('callbackUrl');
    expect(JSON.stringify(res.json)).not.toContain('RES-run-snap-4');
    // approvals:respond in another tenant sees neither the run nor its tokens.
    const other = await call('GET', '/v1/runs/run-snap-4', { auth: OTHER_TENANT_KEY });
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.json)).not.toContain('run-snap-4.mac');
  });

  it('expired tokens are handed to nobody: tokenExpired and tokenExpiresAt instead', async () => {
    const expiresAt = new Date(Date.now() - 1_000).toISOString();
    await seedRun('run-snap-5', { invalidated: false, expiresAt });
    for (const key of [RESOLVER_KEY, API_KEY]) {
      const res = await call('GET', '/v1/runs/run-snap-5', { auth: key });
      expect(res.json.interrupt).toMatchObject({
        interruptId: 'run-snap-5:gate:0',
        tokenExpired: true,
        tokenExpiresAt: expiresAt,
      });
      expect(JSON.stringify(res.json)).not.toContain('run-snap-5.mac');
    }
  });

  it('no token fields when the token service mints none (answered, run ended) or refuses (an older token service)', async () => {
    await seedRun('run-snap-2', { invalidated: true });
    await seedRun('run-snap-3');
    mintable.set('run-snap-3', 'command_not_applied');
    await seedRun('run-snap-6');
    mintable.set('run-snap-6', 'unavailable');
    for (const runId of ['run-snap-2', 'run-snap-3', 'run-snap-6']) {
      const res = await call('GET', `/v1/runs/${runId}`, { auth: RESOLVER_KEY });
      expect(res.status).toBe(200);
      expect(res.json.interrupt).not.toHaveProperty('interruptToken');
      expect(res.json.interrupt).not.toHaveProperty('callbackUrl');
      expect(res.json.interrupt).not.toHaveProperty('inspectToken');
      expect(res.json.interrupt).toMatchObject({ interruptId: `${runId}:gate:0` });
    }
  });

  it('a run not waiting on an interrupt asks the token service nothing', async () => {
    await platform.dataSource.query(
      `INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
       VALUES ('run-snap-7', 't1', 'wf', 'running', 'a', 1, $1, now(), now())`,
      [JSON.stringify({ runId: 'run-snap-7', workflowId: 'wf', status: 'running', owner: { tenant: 't1' } })],
    );
    expect((await call('GET', '/v1/runs/run-snap-7', { auth: RESOLVER_KEY })).status).toBe(200);
    expect(received).toHaveLength(0);
  });
});

describe('the signed-link page (a browser) and its token-verified reads', () => {
  const BROWSER_ACCEPT =
    'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
  const claims = (runId: string, tag: string, extra: Record<string, string> = {}) =>
    `${b64({ v: 1, alg: 'HS256', kid: 'k1', runId, nodeId: 'gate', interruptId: `${runId}:gate:0`, expiresAt: '2099-01-01T00:00:00.000Z', intent: 'resolve', tag, ...extra })}.${Buffer.alloc(32, 1).toString('base64url')}`;
  const get = (path: string, accept?: string) =>
    fetch(`${base}${path}`, accept === undefined ? {} : { headers: { accept } });

  async function seedRun(runId: string, status: string) {
    await platform.dataSource.query(
      `INSERT INTO runs (run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at)
       VALUES ($1, 't1', 'wf', $2, 'gate', 2, $3, now(), now())`,
      [runId, status, JSON.stringify({ runId, status, owner: { tenant: 't1' } })],
    );
  }

  async function seedResolved(runId: string, payload: Record<string, unknown>) {
    const doc = {
      eventId: `${runId}-7`,
      runId,
      sequence: 7,
      type: 'interrupt.resolved',
      nodeId: 'gate',
      payload: { interruptId: `${runId}:gate:0`, ...payload },
    };
    await platform.dataSource.query(
      `INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc) VALUES ($1, $2, 7, 'interrupt.resolved', 'gate', $3)`,
      [doc.eventId, runId, JSON.stringify(doc)],
    );
  }

  it('a browser gets the page: self-only CSP, no referrer, not cached, Vary: Accept, OpenWOP-Version; nothing is asked of the token service', async () => {
    for (const token of [tokenFor('run-p1', 'ok'), 'not-even-a-token']) {
      const res = await get(`/v1/interrupts/${token}`, BROWSER_ACCEPT);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('vary')).toBe('Accept, OpenWOP-Version');
      // A page is no protocol response: no OpenWOP-Version (v2 versioning.md §1.4).
      expect(res.headers.get('openwop-version')).toBeNull();
      const html = await res.text();
      expect(html).toContain('<script type="module" src="/link/assets/app.js"></script>');
      // The page is the same for every link: the token stays in the address, not in the document.
      expect(html).not.toContain(token);
    }
    expect(received).toHaveLength(0);
  });

  it('JSON clients keep the JSON answer: no Accept, */*, application/json, or text/html ranked below JSON', async () => {
    const token = tokenFor('run-p2', 'ok');
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await get(`/v1/interrupts/${token}`, accept);
      expect({
        accept,
        status: res.status,
        type: res.headers.get('content-type'),
        vary: res.headers.get('vary'),
      }).toEqual({
        accept,
        status: 200,
        type: 'application/json; charset=utf-8',
        vary: 'Accept, OpenWOP-Version',
      });
      expect(res.headers.get('openwop-version')).toBe('1.0');
      expect(await res.json()).toEqual(
        expect.objectContaining({ runId: 'run-p2', kind: 'approval', intent: 'resolve' }),
      );
    }
    // A refusal is still the envelope for a JSON client.
    const refused = await get(`/v1/interrupts/${tokenFor('run-p2', 'interrupt_expired')}`, '*/*');
    expect(refused.status).toBe(410);
    assertErrorEnvelope(await refused.json());
    expect(received).toHaveLength(5);
  });

  it('serves the page files from a fixed list under /link/assets', async () => {
    const js = await get('/link/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('referrer-policy')).toBe('no-referrer');
    for (const name of ['index.html', '..%2Fpackage.json', 'nope.js'])
      expect((await get(`/link/assets/${name}`)).status).toBe(404);
  });

  it('outcome: pending while the token works, with the run status', async () => {
    await seedRun('run-o1', 'waiting-approval');
    const res = await call('GET', `/v1/interrupts/${tokenFor('run-o1', 'ok')}/outcome`);
    expect(res).toEqual({
      status: 200,
      json: {
        state: 'pending',
        runId: 'run-o1',
        nodeId: 'gate',
        interruptId: 'run-o1:gate:0',
        expiresAt: '2099-01-01T00:00:00.000Z',
        intent: 'resolve',
        runStatus: 'waiting-approval',
      },
    });
  });

  it('outcome: answered (from the log) or run-ended once the token service says the token is used up', async () => {
    await seedRun('run-o2', 'completed');
    await seedResolved('run-o2', {
      outcome: 'resolved',
      action: 'accept',
      resolvedAt: '2026-01-01T00:01:00.000Z',
      resumeValue: { action: 'accept', feedback: 'secret note' },
      resolvedBy: 'key-t1',
    });
    const answered = await call(
      'GET',
      `/v1/interrupts/${claims('run-o2', 'interrupt_already_resolved')}/outcome`,
    );
    expect(answered).toEqual({
      status: 200,
      json: expect.objectContaining({
        state: 'answered',
        runId: 'run-o2',
        interruptId: 'run-o2:gate:0',
        runStatus: 'completed',
        answer: { outcome: 'resolved', action: 'accept', resolvedAt: '2026-01-01T00:01:00.000Z' },
      }),
    });
    // States, never the answer itself or who gave it.
    expect(JSON.stringify(answered.json)).not.toMatch(/secret note|key-t1|"tag"/);

    await seedRun('run-o3', 'cancelled');
    const ended = await call(
      'GET',
      `/v1/interrupts/${claims('run-o3', 'interrupt_already_resolved')}/outcome`,
    );
    expect(ended.json).toEqual(expect.objectContaining({ state: 'run-ended', runStatus: 'cancelled' }));
    expect(ended.json).not.toHaveProperty('answer');

    // Used up while the run still goes on: answered, though the event is not projected yet.
    await seedRun('run-o4', 'running');
    const racing = await call(
      'GET',
      `/v1/interrupts/${claims('run-o4', 'interrupt_already_resolved')}/outcome`,
    );
    expect(racing.json).toEqual(expect.objectContaining({ state: 'answered', runStatus: 'running' }));
  });

  it.each([
    ['interrupt_expired', 410],
    ['interrupt_not_found', 404],
    ['validation_error', 400],
  ])('outcome of a %s token is that refusal', async (code, status) => {
    const res = await call('GET', `/v1/interrupts/${tokenFor('run-o5', code)}/outcome`);
    expect({ status: res.status, error: res.json.error }).toEqual({ status, error: code });
  });

  it("transcript: the turns of the token's conversation, paged; none for an interrupt without one", async () => {
    await platform.dataSource.query(
      `INSERT INTO conversations (conversation_id, run_id, node_id, tenant, status, turn_count, opened_at, last_sequence)
       VALUES ('run-t1:talk:0', 'run-t1', 'talk', 't1', 'open', 3, '2026-01-01T00:00:00.000Z', 5)`,
    );
    for (const [i, role, content] of [
      [0, 'system', 'Plan a trip'],
      [1, 'agent', 'Where to?'],
      [2, 'user', 'Lisbon'],
    ] as const) {
      await platform.dataSource.query(
        `INSERT INTO conversation_turns (conversation_id, turn_index, message_id, run_id, role, from_id, content, ts)
         VALUES ('run-t1:talk:0', $1, $2, 'run-t1', $3, $3, $4, 1767225600000)`,
        [i, `m${i}`, role, JSON.stringify(content)],
      );
    }
    const token = claimsWithKind('run-t1', 'conversation.exchange');
    const all = await call('GET', `/v1/interrupts/${token}/conversation`);
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({
      conversationId: 'run-t1:talk:0',
      nodeId: 'talk',
      status: 'open',
      turnCount: 3,
    });
    expect((all.json.turns as { content: string }[]).map((t) => t.content)).toEqual([
      'Plan a trip',
      'Where to?',
      'Lisbon',
    ]);
    const page = await call('GET', `/v1/interrupts/${token}/conversation?after=0&limit=1`);
    expect(page.json).toMatchObject({ turns: [{ turnIndex: 1, content: 'Where to?' }], nextCursor: 1 });
    expect((await call('GET', `/v1/interrupts/${token}/conversation?after=x`)).status).toBe(400);

    const none = await call('GET', `/v1/interrupts/${tokenFor('run-t2', 'ok')}/conversation`);
    expect({ status: none.status, error: none.json.error }).toEqual({ status: 404, error: 'not_found' });
    const used = await call(
      'GET',
      `/v1/interrupts/${tokenFor('run-t1', 'interrupt_already_resolved')}/conversation`,
    );
    expect(used.status).toBe(409);
  });

  function claimsWithKind(runId: string, kind: string) {
    return `${b64({ v: 1, alg: 'HS256', kid: 'k1', runId, tag: 'ok', kind })}.${Buffer.alloc(32, 1).toString('base64url')}`;
  }
});
