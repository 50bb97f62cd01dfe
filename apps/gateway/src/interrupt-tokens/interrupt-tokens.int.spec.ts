import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { assertErrorEnvelope, Topics, type CommandEnvelope, type CommandReply } from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { readHostConfig, rootModule, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { configureGatewayApp } from '../configure-gateway-app';
import { GatewayModule } from '../gateway.module';

// The gateway's signed-token surface over the real in-process platform and a fresh Postgres. A
// fake token service answers the token command topic, so every verdict it can send is mapped
// through the gateway's one error table; the snapshot decoration reads rows written here.

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
const savedKeys = process.env.WOP_API_KEYS;

/** Answers by the token's `tag`: `ok`, or the error code to refuse with. */
async function fakeTokenService(message: IncomingMessage): Promise<CommandReply> {
  const command = message.value as CommandEnvelope<string, { token: string; resumeValue?: unknown }>;
  received.push({ key: message.key, command });
  const [payload] = command.data.token.split('.');
  const { tag, runId } = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as {
    tag: string;
    runId: string;
  };
  if (tag !== 'ok') return { ok: false, error: { code: tag, message: `refused: ${tag}` } };
  return command.type === 'token.inspect'
    ? {
        ok: true,
        data: { runId, nodeId: 'gate', interruptId: `${runId}:gate:0`, kind: 'approval', intent: 'resolve' },
      }
    : { ok: true, data: { runId, nodeId: 'gate', interruptId: `${runId}:gate:0`, status: 'resolved' } };
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; auth?: boolean | string } = {},
) {
  const headers: Record<string, string> = {};
  if (options.auth) headers.authorization = `Bearer ${typeof options.auth === 'string' ? options.auth : API_KEY}`;
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
          actor: { tenant: '*token*', principal: 'token' },
          data: { token },
        }),
      },
    ]);
  });

  it('POST resolves with {resumeValue} or with the value itself as the body', async () => {
    const token = tokenFor('run-b', 'ok');
    const a = await call('POST', `/v1/interrupts/${token}`, { body: { resumeValue: { action: 'accept' } } });
    const b = await call('POST', `/v1/interrupts/${token}`, { body: { action: 'accept' } });
    for (const res of [a, b])
      expect(res).toEqual({
        status: 200,
        json: { runId: 'run-b', nodeId: 'gate', interruptId: 'run-b:gate:0', status: 'resolved' },
      });
    expect(received.map((r) => r.command.data)).toEqual([
      { token, resumeValue: { action: 'accept' } },
      { token, resumeValue: { action: 'accept' } },
    ]);
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

  it('a token that does not decode is 400 at the gateway; nothing is sent', async () => {
    for (const token of [
      'abc',
      'a.b.c',
      `${Buffer.from('x').toString('base64url')}.AAAA`,
      `${b64({ nodeId: 'n' })}.AAAA`,
    ]) {
      const res = await call('GET', `/v1/interrupts/${encodeURIComponent(token)}`);
      expect({ status: res.status, error: res.json.error }).toEqual({
        status: 400,
        error: 'validation_error',
      });
      expect(JSON.stringify(res.json)).not.toContain(token.length > 4 ? token : '\u0000');
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
    if (tokens) {
      await platform.dataSource.query(
        `INSERT INTO resolution_tokens (interrupt_id, run_id, node_id, tenant, kind, key, data, requested_at, resolve_token, inspect_token, kid, expires_at, invalidated_at)
         VALUES ($1, $2, 'gate', 't1', 'external-event', $1, '{}', '2026-01-01T00:00:00.000Z', $3, $4, 'k1', $6, $5)`,
        [interruptId, runId, `RES-${runId}.mac`, `INS-${runId}.mac`, tokens.invalidated ? new Date() : null, tokens.expiresAt ?? future],
      );
    }
  }

  it('a key holding approvals:respond: interruptToken, callbackUrl (public URL), inspectToken, inspectUrl and tokenExpiresAt', async () => {
    await seedRun('run-snap-1', { invalidated: false });
    const res = await call('GET', '/v1/runs/run-snap-1', { auth: RESOLVER_KEY });
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
      expect(res.json.interrupt).toMatchObject({ interruptId: 'run-snap-5:gate:0', tokenExpired: true, tokenExpiresAt: expiresAt });
      expect(JSON.stringify(res.json)).not.toContain('run-snap-5.mac');
    }
  });

  it('no token fields when the tokens are invalidated or not minted (after a bounded wait)', async () => {
    await seedRun('run-snap-2', { invalidated: true });
    await seedRun('run-snap-3');
    for (const runId of ['run-snap-2', 'run-snap-3']) {
      const res = await call('GET', `/v1/runs/${runId}`, { auth: RESOLVER_KEY });
      expect(res.status).toBe(200);
      expect(res.json.interrupt).not.toHaveProperty('interruptToken');
      expect(res.json.interrupt).not.toHaveProperty('callbackUrl');
    }
  });
});
