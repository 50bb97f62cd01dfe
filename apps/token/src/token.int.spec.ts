import 'reflect-metadata';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  Topics,
  type AuthorizeTokenResult,
  type CommandEnvelope,
  type CommandReply,
  type InspectTokenResult,
  type MintTokensResult,
  type ResolveInterruptCommand,
  type ResolveInterruptResult,
  type RunEventDoc,
} from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { PlatformModule, readHostConfig, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import {
  signToken,
  tokenChangesFor,
  verifyToken,
  type KeyRing,
  type MintedTokens,
} from '@openwop/token-domain';
import { randomUUID } from 'node:crypto';
import { CLOCK, type Clock } from './token.di-tokens';
import { TokenModule } from './token.module';

// The token service over the real in-process platform (in-process bus, a fresh Postgres database).
// It follows no run-event topic: it mints and verifies from the run's events in the projector's
// store (`run_events`), which the tests write as the projector would. A fake interrupt service
// serves the interrupt command topic for the previous release's `token.resolve` (it records the
// `interrupt.resolved` of a win, as the engine's log and the projector would a moment later).

const secrets = { k0: Buffer.alloc(32, 10), k1: Buffer.alloc(32, 11), k2: Buffer.alloc(32, 12) };
const KEYS = JSON.stringify({
  active: 'k2',
  keys: Object.fromEntries(Object.entries(secrets).map(([kid, s]) => [kid, s.toString('base64')])),
  retired: ['k0'],
});
const ring: KeyRing = { activeKid: 'k2', keys: { k1: { secret: secrets.k1 }, k2: { secret: secrets.k2 } } };
const TTL_MS = 60_000;

let db: TestDatabase;
let platform: Platform;
let moduleRef: TestingModule;
let skewMs = 0;
const clock: Clock = { now: () => Date.now() + skewMs };
const saved = { keys: process.env.WOP_TOKEN_KEYS, ttl: process.env.WOP_TOKEN_TTL_MS };
/** Every topic the token service subscribed or served while it started, by group. */
const joined: { group: string; topics: readonly string[] }[] = [];

/** What the fake interrupt service received, and its first-resolve-wins state. */
const forwarded: ResolveInterruptCommand[] = [];
const resolved = new Set<string>();
/** Like the real service, a command id decided before gets its first verdict again. */
const decided = new Map<string, CommandReply<ResolveInterruptResult>>();

async function fakeInterruptService(message: IncomingMessage): Promise<CommandReply<ResolveInterruptResult>> {
  const command = message.value as ResolveInterruptCommand;
  forwarded.push(command);
  const first = decided.get(command.id);
  if (first) return first;
  if (command.data.replayOnly)
    return { ok: false, error: { code: 'interrupt_already_resolved', message: 'no earlier verdict' } };
  const reply = await decideFake(command);
  if (reply.ok) decided.set(command.id, reply);
  return reply;
}

async function decideFake(command: ResolveInterruptCommand): Promise<CommandReply<ResolveInterruptResult>> {
  const { runId, nodeId, interruptId, resumeValue } = command.data;
  const v = resumeValue as { mode?: string } | undefined;
  if (v?.mode === 'mismatch')
    return {
      ok: false,
      error: { code: 'correlation_mismatch', message: 'no match', details: { mismatchedKeys: ['orderId'] } },
    };
  if (v?.mode === 'cancelled')
    return { ok: false, error: { code: 'interrupt_cancelled', message: 'cancelled' } };
  if (v?.mode === 'slow') await new Promise((r) => setTimeout(r, 2_500));
  if (resolved.has(interruptId!))
    return { ok: false, error: { code: 'interrupt_already_resolved', message: 'already' } };
  resolved.add(interruptId!);
  await record(runId, 'interrupt.resolved', { nodeId, interruptId }, nodeId);
  return { ok: true, data: { runId, nodeId, interruptId: interruptId!, status: 'resolved' } };
}

const sequence = new Map<string, number>();
/** Writes a run event into the projector's store, as the projector does with each event of the log. */
async function record(
  runId: string,
  type: RunEventDoc['type'],
  payload: unknown,
  nodeId?: string,
): Promise<RunEventDoc> {
  const seq = sequence.get(runId) ?? 0;
  sequence.set(runId, seq + 1);
  const event: RunEventDoc = {
    eventId: `${runId}:${seq}`,
    runId,
    type,
    payload,
    timestamp: new Date().toISOString(),
    sequence: seq,
    ...(nodeId ? { nodeId } : {}),
  };
  await platform.dataSource.query(
    'INSERT INTO run_events (event_id, run_id, sequence, type, node_id, doc) VALUES ($1, $2, $3, $4, $5, $6)',
    [event.eventId, runId, seq, type, nodeId ?? null, JSON.stringify(event)],
  );
  return event;
}

/** A run of tenant t1 waiting on one interrupt, and the tokens the snapshot is shown for it. */
async function waitingRun(
  options: { timeoutMs?: number; kind?: string; requestedAgoMs?: number; protocolMajor?: 2 } = {},
) {
  const runId = `run-${randomUUID().slice(0, 8)}`;
  const interruptId = `${runId}:gate:0`;
  const requestedAt = new Date(Date.now() - (options.requestedAgoMs ?? 0)).toISOString();
  await record(runId, 'run.started', {
    workflowId: 'wf',
    owner: { tenant: 't1', principal: 'p1' },
    inputs: { big: 'x'.repeat(1000) },
    ...(options.protocolMajor !== undefined ? { protocolMajor: options.protocolMajor } : {}),
  });
  const requested = await record(
    runId,
    'interrupt.requested',
    {
      nodeId: 'gate',
      interruptId,
      kind: options.kind ?? 'external-event',
      key: interruptId,
      data: { eventType: 'order.paid', correlation: { orderId: 'o1' } },
      requestedAt,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    },
    'gate',
  );
  const minted = await mint(runId, interruptId);
  if (!minted.ok || !minted.data.tokens)
    throw new Error(`no tokens for ${interruptId}: ${JSON.stringify(minted)}`);
  return { runId, interruptId, requestedAt, requested, ...minted.data.tokens };
}

async function send<T = unknown>(
  type: 'token.inspect' | 'token.resolve' | 'token.authorize' | 'token.mint',
  key: string,
  data: unknown,
  id: string = randomUUID(),
): Promise<CommandReply<T>> {
  const command: CommandEnvelope = {
    id,
    type,
    occurredAt: new Date().toISOString(),
    correlationId: key,
    actor: { tenant: '*token*', principal: 'token' },
    data,
  };
  return platform.bus.request<CommandReply<T>>(
    Topics.tokenCommands,
    { key, value: command },
    { timeoutMs: 8_000 },
  );
}

const mint = (runId: string, interruptId: string) =>
  send<MintTokensResult>('token.mint', runId, { runId, interruptId });
const inspect = (token: string, key = 'any') => send<InspectTokenResult>('token.inspect', key, { token });
const authorize = (token: string, key = 'any') =>
  send<AuthorizeTokenResult>('token.authorize', key, { token });
const resolve = (token: string, resumeValue: unknown, key = 'any') =>
  send<ResolveInterruptResult>('token.resolve', key, { token, resumeValue });
const codeOf = (reply: CommandReply) => (reply.ok ? 'ok' : reply.error.code);

beforeAll(async () => {
  db = await createTestDatabase('token');
  process.env.WOP_TOKEN_KEYS = KEYS;
  process.env.WOP_TOKEN_TTL_MS = String(TTL_MS);
  platform = await startPlatform(
    readHostConfig('embedded', {
      OPENWOP_DATA_DIR: 'memory',
      DATABASE_URL: db.url,
      COMMAND_TIMEOUT_MS: '2000',
      KAFKA_PARTITIONS: '2',
    }),
  );
  await platform.bus.serve({
    group: 'interrupt',
    topic: Topics.interruptCommands,
    handler: fakeInterruptService,
  });
  // Observes (and passes on) what the token service joins.
  const { bus } = platform;
  const subscribe = bus.subscribe.bind(bus);
  const serve = bus.serve.bind(bus);
  jest
    .spyOn(bus, 'subscribe')
    .mockImplementation((o) => (joined.push({ group: o.group, topics: o.topics }), subscribe(o)));
  jest
    .spyOn(bus, 'serve')
    .mockImplementation((o) => (joined.push({ group: o.group, topics: [o.topic] }), serve(o)));
  moduleRef = await Test.createTestingModule({ imports: [PlatformModule.forRoot(platform), TokenModule] })
    .overrideProvider(CLOCK)
    .useValue(clock)
    .setLogger({
      log: () => undefined,
      warn: () => undefined,
      error: console.error,
      debug: () => undefined,
      verbose: () => undefined,
    })
    .compile();
  await moduleRef.init();
  jest.restoreAllMocks();
}, 60_000);

afterAll(async () => {
  await moduleRef?.close();
  await platform?.close();
  await db?.drop();
  for (const [name, value] of [
    ['WOP_TOKEN_KEYS', saved.keys],
    ['WOP_TOKEN_TTL_MS', saved.ttl],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}, 30_000);

beforeEach(() => {
  skewMs = 0;
  forwarded.length = 0;
});

describe('the token service follows no run-event topic', () => {
  it('it serves its command topic and joins nothing else at start', () => {
    // (The in-process bus's serve subscribes through its own subscribe: one group, seen twice.)
    expect([...new Set(joined.map((j) => `${j.group} ${j.topics.join(',')}`))]).toEqual([
      `token-commands ${Topics.tokenCommands}`,
    ]);
  });
});

describe('minting on demand (token.mint)', () => {
  it("a pending interrupt's resolve and inspect-only tokens, signed by the active key, expiring at min(ttl, timeoutMs)", async () => {
    const { runId, interruptId, requestedAt, resolveToken, inspectToken, expiresAt } = await waitingRun({
      timeoutMs: 20_000,
    });
    expect(expiresAt).toBe(new Date(Date.parse(requestedAt) + 20_000).toISOString());
    expect(verifyToken(resolveToken, ring, Date.now())).toMatchObject({
      ok: true,
      payload: { intent: 'resolve', kid: 'k2', runId, nodeId: 'gate', interruptId, expiresAt },
    });
    expect(verifyToken(inspectToken, ring, Date.now())).toMatchObject({
      ok: true,
      payload: { intent: 'inspect', kid: 'k2', interruptId, expiresAt },
    });
  });

  it('the default lifetime applies when the interrupt has no shorter timeout', async () => {
    const { requestedAt, expiresAt } = await waitingRun();
    expect(Date.parse(expiresAt)).toBe(Date.parse(requestedAt) + TTL_MS);
  });

  it("every mint gives the same tokens: the ones the previous release's run-event consumer stored for the event", async () => {
    const { runId, interruptId, requested, resolveToken, inspectToken, expiresAt } = await waitingRun({
      timeoutMs: 45_000,
    });
    expect(await mint(runId, interruptId)).toEqual({
      ok: true,
      data: { tokens: { resolveToken, inspectToken, expiresAt } },
    });
    const [stored] = tokenChangesFor(requested, { ring, defaultTtlMs: TTL_MS });
    expect((stored as { tokens: MintedTokens }).tokens).toMatchObject({
      resolveToken,
      inspectToken,
      expiresAt,
    });
  });

  it('none for an interrupt never requested, one of another run, or one answered or whose run ended', async () => {
    const a = await waitingRun();
    const b = await waitingRun();
    const none = { ok: true, data: {} };
    expect(await mint(a.runId, `${a.runId}:gate:9`)).toEqual(none);
    expect(await mint(b.runId, a.interruptId)).toEqual(none);
    expect(await mint('ghost', 'ghost:gate:0')).toEqual(none);
    await record(a.runId, 'interrupt.resolved', { nodeId: 'gate', interruptId: a.interruptId }, 'gate');
    expect(await mint(a.runId, a.interruptId)).toEqual(none);
    await record(b.runId, 'run.cancelled', {});
    expect(await mint(b.runId, b.interruptId)).toEqual(none);
  });

  it('expired tokens are still returned (the snapshot says they expired and shows none)', async () => {
    // Requested a second ago with a 1 ms timeout: expired before the mint, however fast the mint is.
    const { runId, interruptId, expiresAt } = await waitingRun({ timeoutMs: 1, requestedAgoMs: 1_000 });
    expect(Date.parse(expiresAt)).toBeLessThan(clock.now());
    const reply = await mint(runId, interruptId);
    expect(reply).toMatchObject({ ok: true, data: { tokens: { expiresAt } } });
  });

  it('a malformed mint command → validation_error', async () => {
    expect(codeOf(await send('token.mint', 'k', { runId: 'r' }))).toBe('validation_error');
    expect(codeOf(await send('token.mint', 'k', { runId: 'r', interruptId: 'i', token: 'x' }))).toBe(
      'validation_error',
    );
  });
});

describe('inspect', () => {
  it('a resolve token and an inspect-only token both inspect the pending interrupt', async () => {
    const { runId, interruptId, requestedAt, resolveToken, inspectToken } = await waitingRun({
      timeoutMs: 30_000,
    });
    const viaResolve = await inspect(resolveToken, runId);
    expect(viaResolve).toEqual({
      ok: true,
      data: {
        runId,
        nodeId: 'gate',
        interruptId,
        kind: 'external-event',
        key: interruptId,
        data: { eventType: 'order.paid', correlation: { orderId: 'o1' } },
        timeoutMs: 30_000,
        requestedAt,
        expiresAt: new Date(Date.parse(requestedAt) + 30_000).toISOString(),
        intent: 'resolve',
      },
    });
    expect(await inspect(inspectToken, runId)).toMatchObject({
      ok: true,
      data: { interruptId, intent: 'inspect' },
    });
    expect(forwarded).toHaveLength(0);
  });

  it('rotation: a token of the previous key k1 still verifies; the retired k0 and an unknown kid are interrupt_token_invalid', async () => {
    const { runId, interruptId, requestedAt } = await waitingRun();
    const claims = {
      runId,
      nodeId: 'gate',
      interruptId,
      expiresAt: new Date(Date.parse(requestedAt) + TTL_MS).toISOString(),
      intent: 'resolve' as const,
    };
    expect(
      codeOf(await inspect(signToken(claims, { activeKid: 'k1', keys: { k1: { secret: secrets.k1 } } }))),
    ).toBe('ok');
    expect(
      codeOf(await authorize(signToken(claims, { activeKid: 'k1', keys: { k1: { secret: secrets.k1 } } }))),
    ).toBe('ok');
    expect(
      codeOf(await inspect(signToken(claims, { activeKid: 'k0', keys: { k0: { secret: secrets.k0 } } }))),
    ).toBe('interrupt_token_invalid');
    expect(
      codeOf(await inspect(signToken(claims, { activeKid: 'k9', keys: { k9: { secret: secrets.k2 } } }))),
    ).toBe('interrupt_token_invalid');
  });
});

describe('ow2 tokens for a run created under major 2 (identity.md §4)', () => {
  it('mints ow2.hs256.<active kid> tokens from the run.started protocolMajor; a v1 run keeps v1 tokens', async () => {
    const v2 = await waitingRun({ protocolMajor: 2, timeoutMs: TTL_MS / 2 });
    const v1 = await waitingRun();
    for (const token of [v2.resolveToken, v2.inspectToken])
      expect(token.startsWith(`ow2.hs256.${ring.activeKid}.`)).toBe(true);
    for (const token of [v1.resolveToken, v1.inspectToken]) expect(token.startsWith('ow2.')).toBe(false);
    // expiresAt is capped at the interrupt's timeout, below the configured lifetime.
    expect(v2.expiresAt).toBe(new Date(Date.parse(v2.requestedAt) + TTL_MS / 2).toISOString());
    const open = await waitingRun({ protocolMajor: 2 });
    expect(open.expiresAt).toBe(new Date(Date.parse(open.requestedAt) + TTL_MS).toISOString());
    expect(verifyToken(v2.resolveToken, ring, Date.now())).toMatchObject({
      ok: true,
      payload: { v: 2, alg: 'hs256', kid: ring.activeKid, runId: v2.runId, expiresAt: v2.expiresAt },
    });
    expect(codeOf(await inspect(v2.inspectToken))).toBe('ok');
    const granted = await authorize(v2.resolveToken);
    expect(granted).toMatchObject({ ok: true, data: { runId: v2.runId, kid: ring.activeKid } });
    expect(codeOf(await authorize(v2.inspectToken))).toBe('forbidden');
  });

  it('an alg we do not advertise, a kid we do not hold, or a tampered MAC → interrupt_token_invalid; expired → interrupt_expired', async () => {
    const { resolveToken } = await waitingRun({ protocolMajor: 2 });
    const [, , ...rest] = resolveToken.split('.');
    for (const bad of [
      `ow2.hs512.${rest.join('.')}`,
      resolveToken.replace(`ow2.hs256.${ring.activeKid}.`, 'ow2.hs256.k9.'),
      resolveToken.replace(`ow2.hs256.${ring.activeKid}.`, 'ow2.hs256.legacy.'),
      `${resolveToken.slice(0, resolveToken.lastIndexOf('.'))}.${Buffer.alloc(32).toString('base64url')}`,
    ]) {
      expect(codeOf(await inspect(bad))).toBe('interrupt_token_invalid');
      expect(codeOf(await authorize(bad))).toBe('interrupt_token_invalid');
    }
    const old = await waitingRun({ protocolMajor: 2, timeoutMs: 1_000, requestedAgoMs: 1_000 });
    expect(codeOf(await inspect(old.resolveToken))).toBe('interrupt_expired');
    expect(codeOf(await authorize(old.resolveToken))).toBe('interrupt_expired');
  });
});

describe('the refusal matrix', () => {
  it('malformed or a bad MAC → interrupt_token_invalid; an interrupt never requested → interrupt_not_found', async () => {
    const { runId, resolveToken } = await waitingRun();
    expect(codeOf(await inspect('not-a-token'))).toBe('interrupt_token_invalid');
    expect(codeOf(await authorize(`${resolveToken}=`))).toBe('interrupt_token_invalid');
    expect(codeOf(await resolve(`${resolveToken}=`, {}))).toBe('interrupt_token_invalid');
    const [payload] = resolveToken.split('.');
    const badMac = `${payload}.${Buffer.alloc(32).toString('base64url')}`;
    expect(codeOf(await resolve(badMac, {}))).toBe('interrupt_token_invalid');
    expect(codeOf(await authorize(badMac))).toBe('interrupt_token_invalid');
    for (const [run, interruptId] of [
      ['ghost', 'ghost:n:0'],
      [runId, `${runId}:gate:7`],
    ] as const) {
      const never = signToken(
        {
          runId: run,
          nodeId: 'gate',
          interruptId,
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
          intent: 'resolve',
        },
        ring,
      );
      expect(codeOf(await inspect(never))).toBe('interrupt_not_found');
      expect(codeOf(await authorize(never))).toBe('interrupt_not_found');
    }
    // The right interrupt under another node than it was requested on.
    const { interruptId } = await waitingRun();
    const wrongNode = signToken(
      {
        runId: interruptId.split(':gate')[0]!,
        nodeId: 'other',
        interruptId,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
        intent: 'resolve',
      },
      ring,
    );
    expect(codeOf(await inspect(wrongNode))).toBe('interrupt_not_found');
    expect(forwarded).toHaveLength(0);
  });

  it('an expired token → interrupt_expired for inspect, authorize and resolve', async () => {
    const { resolveToken } = await waitingRun({ timeoutMs: 5_000 });
    skewMs = 5_001;
    expect(codeOf(await inspect(resolveToken))).toBe('interrupt_expired');
    expect(codeOf(await authorize(resolveToken))).toBe('interrupt_expired');
    const refused = await resolve(resolveToken, {});
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'interrupt_expired', details: { expiresAt: expect.any(String) } },
    });
    expect(forwarded).toHaveLength(0);
  });

  it('an inspect-only token cannot resolve → forbidden (before spent: 403 also once the interrupt was answered)', async () => {
    const { runId, interruptId, inspectToken } = await waitingRun();
    expect(codeOf(await authorize(inspectToken))).toBe('forbidden');
    expect(codeOf(await resolve(inspectToken, { eventType: 'order.paid' }))).toBe('forbidden');
    await record(runId, 'interrupt.resolved', { nodeId: 'gate', interruptId }, 'gate');
    expect(codeOf(await authorize(inspectToken))).toBe('forbidden');
    expect(codeOf(await inspect(inspectToken))).toBe('interrupt_already_resolved');
    expect(forwarded).toHaveLength(0);
  });

  it('malformed command envelopes → validation_error', async () => {
    expect(codeOf(await send('token.inspect', 'k', {}))).toBe('validation_error');
    expect(codeOf(await send('token.authorize', 'k', { token: 'a.b', operation: 'resolve' }))).toBe(
      'validation_error',
    );
    expect(codeOf(await send('token.resolve', 'k', { token: 'a.b', extra: 1 }))).toBe('validation_error');
  });
});

describe('authorize (the gateway then resolves through the interrupt service itself)', () => {
  it('names the interrupt, the run owner and the key, and forwards nothing', async () => {
    const { runId, interruptId, resolveToken, expiresAt } = await waitingRun();
    expect(await authorize(resolveToken, runId)).toEqual({
      ok: true,
      data: { runId, nodeId: 'gate', interruptId, tenant: 't1', kid: 'k2', expiresAt },
    });
    expect(forwarded).toHaveLength(0);
  });

  it("without the run's run.started in the store, the tenant is absent", async () => {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const interruptId = `${runId}:gate:0`;
    await record(
      runId,
      'interrupt.requested',
      {
        nodeId: 'gate',
        interruptId,
        kind: 'custom',
        key: interruptId,
        data: {},
        requestedAt: new Date().toISOString(),
      },
      'gate',
    );
    const { tokens } = ((await mint(runId, interruptId)) as { ok: true; data: MintTokensResult }).data;
    const reply = await authorize(tokens!.resolveToken, runId);
    expect(reply).toMatchObject({ ok: true, data: { interruptId } });
    expect((reply as { data: AuthorizeTokenResult }).data).not.toHaveProperty('tenant');
  });
});

describe("resolve (token.resolve, a previous release's gateway)", () => {
  it('forwards interrupt.resolve as the run owner with principal token:<kid>, relays the verdict, then the token is spent (409)', async () => {
    const { runId, interruptId, resolveToken, inspectToken } = await waitingRun();
    const reply = await resolve(
      resolveToken,
      { eventType: 'order.paid', correlation: { orderId: 'o1' } },
      runId,
    );
    expect(reply).toEqual({ ok: true, data: { runId, nodeId: 'gate', interruptId, status: 'resolved' } });
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]).toMatchObject({
      type: 'interrupt.resolve',
      actor: { tenant: 't1', principal: 'token:k2' },
      data: {
        runId,
        nodeId: 'gate',
        interruptId,
        via: 'token',
        resumeValue: { eventType: 'order.paid', correlation: { orderId: 'o1' } },
      },
    });
    expect(JSON.stringify(forwarded[0])).not.toContain(resolveToken);
    // Another use of the spent token: only a replay-only question goes out, and it has no earlier
    // verdict, so the token surface says 409.
    expect(codeOf(await resolve(resolveToken, {}, runId))).toBe('interrupt_already_resolved');
    expect(codeOf(await authorize(resolveToken, runId))).toBe('interrupt_already_resolved');
    expect(codeOf(await inspect(resolveToken, runId))).toBe('interrupt_already_resolved');
    expect(codeOf(await inspect(inspectToken, runId))).toBe('interrupt_already_resolved');
    expect(forwarded).toHaveLength(2);
    expect(forwarded[1]!.id).not.toBe(forwarded[0]!.id);
    expect(forwarded[1]!.data.replayOnly).toBe(true);
  });

  it('a redelivered token.resolve whose token it spent itself answers its first verdict, not 409', async () => {
    const { runId, interruptId, resolveToken } = await waitingRun();
    const commandId = randomUUID();
    const first = await send<ResolveInterruptResult>(
      'token.resolve',
      runId,
      { token: resolveToken, resumeValue: {} },
      commandId,
    );
    expect(first).toEqual({ ok: true, data: { runId, nodeId: 'gate', interruptId, status: 'resolved' } });
    expect(await mint(runId, interruptId)).toEqual({ ok: true, data: {} });
    // The same command again, as after the instance that handled it died before its reply went out.
    const again = await send<ResolveInterruptResult>(
      'token.resolve',
      runId,
      { token: resolveToken, resumeValue: {} },
      commandId,
    );
    expect(again).toEqual(first);
    expect(forwarded.map((c) => c.id)).toEqual([forwarded[0]!.id, forwarded[0]!.id]);
  });

  it('concurrent resolves with one token: exactly one wins, the rest get 409', async () => {
    const { runId, resolveToken } = await waitingRun();
    const replies = await Promise.all(Array.from({ length: 8 }, () => resolve(resolveToken, {}, runId)));
    const codes = replies.map(codeOf).sort();
    expect(codes).toEqual(
      ['interrupt_already_resolved', ...Array(6).fill('interrupt_already_resolved'), 'ok'].sort(),
    );
  });

  it("relays the interrupt service's refusals: correlation_mismatch (the token stays usable)", async () => {
    const { runId, resolveToken } = await waitingRun();
    expect(await resolve(resolveToken, { mode: 'mismatch' }, runId)).toMatchObject({
      ok: false,
      error: { code: 'correlation_mismatch', details: { mismatchedKeys: ['orderId'] } },
    });
    expect(codeOf(await authorize(resolveToken, runId))).toBe('ok');
    expect(codeOf(await resolve(resolveToken, {}, runId))).toBe('ok');
  });

  it('interrupt_cancelled from the interrupt service is the token surface 409', async () => {
    const { runId, resolveToken } = await waitingRun();
    expect(codeOf(await resolve(resolveToken, { mode: 'cancelled' }, runId))).toBe(
      'interrupt_already_resolved',
    );
  });

  it('no verdict in time → unavailable (the resolve may still take effect)', async () => {
    const { runId, resolveToken } = await waitingRun();
    expect(await resolve(resolveToken, { mode: 'slow' }, runId)).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
  });
});

describe("invalidation from the run's events", () => {
  it('interrupt.resolved invalidates that interrupt only', async () => {
    const a = await waitingRun();
    const b = await waitingRun();
    await record(a.runId, 'interrupt.resolved', { nodeId: 'gate', interruptId: a.interruptId }, 'gate');
    expect(codeOf(await inspect(a.resolveToken))).toBe('interrupt_already_resolved');
    expect(codeOf(await authorize(a.resolveToken))).toBe('interrupt_already_resolved');
    expect(codeOf(await inspect(b.resolveToken))).toBe('ok');
  });

  it("a later interrupt of the same run keeps its tokens after the earlier one's resolve", async () => {
    const { runId, interruptId } = await waitingRun();
    await record(runId, 'interrupt.resolved', { nodeId: 'gate', interruptId }, 'gate');
    const later = `${runId}:gate:1`;
    await record(
      runId,
      'interrupt.requested',
      {
        nodeId: 'gate',
        interruptId: later,
        kind: 'custom',
        key: later,
        data: {},
        requestedAt: new Date().toISOString(),
      },
      'gate',
    );
    const { tokens } = ((await mint(runId, later)) as { ok: true; data: MintTokensResult }).data;
    expect(codeOf(await authorize(tokens!.resolveToken, runId))).toBe('ok');
  });

  it.each(['run.completed', 'run.failed', 'run.cancelled'] as const)(
    '%s invalidates every token of the run',
    async (type) => {
      const w = await waitingRun();
      await record(w.runId, type, {});
      expect(codeOf(await resolve(w.resolveToken, {}))).toBe('interrupt_already_resolved');
      expect(codeOf(await authorize(w.resolveToken))).toBe('interrupt_already_resolved');
      expect(codeOf(await inspect(w.inspectToken))).toBe('interrupt_already_resolved');
      // Nothing that could decide went out: at most a replay-only question.
      expect(forwarded.filter((c) => c.data.replayOnly !== true)).toHaveLength(0);
    },
  );
});
