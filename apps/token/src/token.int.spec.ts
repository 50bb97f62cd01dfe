import 'reflect-metadata';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  Topics,
  type CommandEnvelope,
  type CommandReply,
  type InspectTokenResult,
  type ResolveInterruptCommand,
  type ResolveInterruptResult,
  type RunEventDoc,
} from '@openwop/contracts';
import type { IncomingMessage } from '@openwop/platform-bus';
import { PlatformModule, readHostConfig, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { signToken, verifyToken, type KeyRing } from '@openwop/token-domain';
import { randomUUID } from 'node:crypto';
import { CLOCK, type Clock } from './token.di-tokens';
import { TokenModule } from './token.module';
import { ResolutionTokenRepository } from './common/resolution-token.repository';
import { tokenChangesFor } from '@openwop/token-domain';

// The token service over the real in-process platform (in-process bus, a fresh Postgres database).
// Run events are published straight onto the log; a fake interrupt service serves the interrupt
// command topic so every verdict the token service relays can be provoked.

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
  if (command.data.replayOnly) return { ok: false, error: { code: 'interrupt_already_resolved', message: 'no earlier verdict' } };
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
  return { ok: true, data: { runId, nodeId, interruptId: interruptId!, status: 'resolved' } };
}

const sequence = new Map<string, number>();
async function publish(
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
  await platform.bus.publish(Topics.runEvents, [{ key: runId, value: event }]);
  return event;
}

interface TokenRow {
  resolve_token: string;
  inspect_token: string;
  tenant: string | null;
  kid: string;
  expires_at: Date;
  invalidated_at: Date | null;
}

async function row(interruptId: string): Promise<TokenRow | undefined> {
  const rows = await platform.dataSource.query<TokenRow[]>(
    'SELECT * FROM resolution_tokens WHERE interrupt_id = $1',
    [interruptId],
  );
  return rows[0];
}

/** Starts a run of tenant t1 waiting on one interrupt; resolves once its tokens are minted. */
async function waitingRun(options: { timeoutMs?: number; kind?: string } = {}) {
  const runId = `run-${randomUUID().slice(0, 8)}`;
  const interruptId = `${runId}:gate:0`;
  const requestedAt = new Date().toISOString();
  await publish(runId, 'run.started', { workflowId: 'wf', owner: { tenant: 't1', principal: 'p1' } });
  const requested = await publish(
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
  const minted = await waitFor(() => row(interruptId), { what: `tokens of ${interruptId}` });
  return {
    runId,
    interruptId,
    requestedAt,
    requested,
    resolveToken: minted.resolve_token,
    inspectToken: minted.inspect_token,
  };
}

async function send<T = unknown>(
  type: 'token.inspect' | 'token.resolve',
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

const inspect = (token: string, key = 'any') => send<InspectTokenResult>('token.inspect', key, { token });
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

describe('minting from the run log', () => {
  it('interrupt.requested mints a resolve and an inspect-only token for the run owner, signed by the active key', async () => {
    const { interruptId, requestedAt, resolveToken, inspectToken } = await waitingRun({ timeoutMs: 20_000 });
    const stored = (await row(interruptId))!;
    expect(stored).toMatchObject({ tenant: 't1', kid: 'k2', invalidated_at: null });
    expect(stored.expires_at.toISOString()).toBe(new Date(Date.parse(requestedAt) + 20_000).toISOString());
    expect(verifyToken(resolveToken, ring, Date.now())).toMatchObject({
      ok: true,
      payload: { intent: 'resolve', kid: 'k2', interruptId },
    });
    expect(verifyToken(inspectToken, ring, Date.now())).toMatchObject({
      ok: true,
      payload: { intent: 'inspect' },
    });
  });

  it('the default lifetime applies when the interrupt has no shorter timeout', async () => {
    const { interruptId, requestedAt } = await waitingRun();
    expect((await row(interruptId))!.expires_at.getTime()).toBe(Date.parse(requestedAt) + TTL_MS);
  });

  it('a replayed interrupt.requested changes nothing (same tokens, one row)', async () => {
    const { runId, interruptId, requested, resolveToken } = await waitingRun();
    await platform.bus.publish(Topics.runEvents, [{ key: runId, value: requested }]);
    // One run's events are handled in order: once a later interrupt is minted, the replay was handled.
    const later = `${runId}:gate:1`;
    await publish(
      runId,
      'interrupt.requested',
      { nodeId: 'gate', interruptId: later, kind: 'custom', key: later, data: {} },
      'gate',
    );
    await waitFor(() => row(later), { what: 'the later interrupt minted' });
    const rows = await platform.dataSource.query<unknown[]>(
      'SELECT 1 FROM resolution_tokens WHERE interrupt_id = $1',
      [interruptId],
    );
    expect(rows).toHaveLength(1);
    expect((await row(interruptId))!.resolve_token).toBe(resolveToken);
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

  it('rotation: a token of the previous key k1 still verifies; the retired k0 and an unknown kid are 404', async () => {
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
      codeOf(await inspect(signToken(claims, { activeKid: 'k0', keys: { k0: { secret: secrets.k0 } } }))),
    ).toBe('interrupt_not_found');
    expect(
      codeOf(await inspect(signToken(claims, { activeKid: 'k9', keys: { k9: { secret: secrets.k2 } } }))),
    ).toBe('interrupt_not_found');
  });
});

describe('the refusal matrix', () => {
  it('malformed → validation_error; a bad MAC or an interrupt never minted → interrupt_not_found', async () => {
    const { resolveToken } = await waitingRun();
    expect(codeOf(await inspect('not-a-token'))).toBe('validation_error');
    expect(codeOf(await resolve(`${resolveToken}=`, {}))).toBe('validation_error');
    const [payload] = resolveToken.split('.');
    expect(codeOf(await resolve(`${payload}.${Buffer.alloc(32).toString('base64url')}`, {}))).toBe(
      'interrupt_not_found',
    );
    const never = signToken(
      {
        runId: 'ghost',
        nodeId: 'n',
        interruptId: 'ghost:n:0',
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
        intent: 'resolve',
      },
      ring,
    );
    expect(codeOf(await inspect(never))).toBe('interrupt_not_found');
    expect(forwarded).toHaveLength(0);
  });

  it('an expired token → interrupt_expired for inspect and resolve', async () => {
    const { resolveToken } = await waitingRun({ timeoutMs: 5_000 });
    skewMs = 5_001;
    expect(codeOf(await inspect(resolveToken))).toBe('interrupt_expired');
    const refused = await resolve(resolveToken, {});
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'interrupt_expired', details: { expiresAt: expect.any(String) } },
    });
    expect(forwarded).toHaveLength(0);
  });

  it('an inspect-only token cannot resolve → forbidden, and nothing is forwarded', async () => {
    const { inspectToken } = await waitingRun();
    expect(codeOf(await resolve(inspectToken, { eventType: 'order.paid' }))).toBe('forbidden');
    expect(forwarded).toHaveLength(0);
  });

  it('malformed command envelopes → validation_error', async () => {
    expect(codeOf(await send('token.inspect', 'k', {}))).toBe('validation_error');
    expect(codeOf(await send('token.resolve', 'k', { token: 'a.b', extra: 1 }))).toBe('validation_error');
  });
});

describe('resolve', () => {
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
    expect((await row(interruptId))!.invalidated_at).not.toBeNull();
    // Another use of the spent token: only a replay-only question goes out, and it has no earlier
    // verdict, so the token surface says 409.
    expect(codeOf(await resolve(resolveToken, {}, runId))).toBe('interrupt_already_resolved');
    expect(codeOf(await inspect(resolveToken, runId))).toBe('interrupt_already_resolved');
    expect(codeOf(await inspect(inspectToken, runId))).toBe('interrupt_already_resolved');
    expect(forwarded).toHaveLength(2);
    expect(forwarded[1]!.id).not.toBe(forwarded[0]!.id);
    expect(forwarded[1]!.data.replayOnly).toBe(true);
  });

  it('a redelivered token.resolve whose token it spent itself answers its first verdict, not 409', async () => {
    const { runId, interruptId, resolveToken } = await waitingRun();
    const commandId = randomUUID();
    const first = await send<ResolveInterruptResult>('token.resolve', runId, { token: resolveToken, resumeValue: {} }, commandId);
    expect(first).toEqual({ ok: true, data: { runId, nodeId: 'gate', interruptId, status: 'resolved' } });
    expect((await row(interruptId))!.invalidated_at).not.toBeNull();
    // The same command again, as after the instance that handled it died before its reply went out.
    const again = await send<ResolveInterruptResult>('token.resolve', runId, { token: resolveToken, resumeValue: {} }, commandId);
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
    const { runId, interruptId, resolveToken } = await waitingRun();
    expect(await resolve(resolveToken, { mode: 'mismatch' }, runId)).toMatchObject({
      ok: false,
      error: { code: 'correlation_mismatch', details: { mismatchedKeys: ['orderId'] } },
    });
    expect((await row(interruptId))!.invalidated_at).toBeNull();
    expect(codeOf(await resolve(resolveToken, {}, runId))).toBe('ok');
  });

  it('interrupt_cancelled from the interrupt service is the token surface 409, and invalidates the token', async () => {
    const { runId, interruptId, resolveToken } = await waitingRun();
    expect(codeOf(await resolve(resolveToken, { mode: 'cancelled' }, runId))).toBe(
      'interrupt_already_resolved',
    );
    expect((await row(interruptId))!.invalidated_at).not.toBeNull();
  });

  it('no verdict in time → unavailable (the resolve may still take effect)', async () => {
    const { runId, resolveToken } = await waitingRun();
    expect(await resolve(resolveToken, { mode: 'slow' }, runId)).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
  });
});

describe('invalidation from the run log', () => {
  it('interrupt.resolved invalidates that interrupt only', async () => {
    const a = await waitingRun();
    const b = await waitingRun();
    await publish(a.runId, 'interrupt.resolved', { nodeId: 'gate', interruptId: a.interruptId });
    await waitFor(async () => (await row(a.interruptId))!.invalidated_at !== null, { what: 'a invalidated' });
    expect(codeOf(await inspect(a.resolveToken))).toBe('interrupt_already_resolved');
    expect(codeOf(await inspect(b.resolveToken))).toBe('ok');
  });

  it.each(['run.completed', 'run.failed', 'run.cancelled'] as const)(
    '%s invalidates every token of the run',
    async (type) => {
      const w = await waitingRun();
      await publish(w.runId, type, {});
      await waitFor(async () => (await row(w.interruptId))!.invalidated_at !== null, {
        what: `${type} invalidates`,
      });
      expect(codeOf(await resolve(w.resolveToken, {}))).toBe('interrupt_already_resolved');
      // Nothing that could decide went out: at most a replay-only question.
      expect(forwarded.filter((c) => c.data.replayOnly !== true)).toHaveLength(0);
    },
  );
});

describe('batches of run events', () => {
  /** Publishes events of one run in one call (one batch for the consumer); returns them. */
  async function publishTogether(runId: string, events: [RunEventDoc['type'], unknown, string?][]): Promise<RunEventDoc[]> {
    const docs = events.map(([type, payload, nodeId]) => {
      const seq = sequence.get(runId) ?? 0;
      sequence.set(runId, seq + 1);
      return {
        eventId: `${runId}:${seq}`,
        runId,
        type,
        payload,
        timestamp: new Date(Date.UTC(2026, 10, 22, 0, 0, seq)).toISOString(),
        sequence: seq,
        ...(nodeId ? { nodeId } : {}),
      } satisfies RunEventDoc;
    });
    await platform.bus.publish(Topics.runEvents, docs.map((value) => ({ key: runId, value })));
    return docs;
  }
  const requestedPayload = (interruptId: string) => ({
    nodeId: interruptId.split(':')[1],
    interruptId,
    kind: 'approval',
    key: interruptId,
    data: {},
    requestedAt: new Date().toISOString(),
  });

  it("a run's start (owner and first mint) is one statement and the tokens carry the owner's tenant", async () => {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const docs = await publishTogether(runId, [
      ['run.started', { workflowId: 'wf', owner: { tenant: 't9', principal: 'p' } }],
      ['interrupt.requested', requestedPayload(`${runId}:gate:0`), 'gate'],
    ]);
    const changes = docs.flatMap((d) => tokenChangesFor(d, { ring, defaultTtlMs: TTL_MS }));
    expect(moduleRef.get(ResolutionTokenRepository).statementsFor(changes)).toHaveLength(1);
    const minted = await waitFor(() => row(`${runId}:gate:0`), { what: 'minted' });
    expect(minted.tenant).toBe('t9');
    const owners = await platform.dataSource.query<{ tenant: string }[]>('SELECT tenant FROM token_runs WHERE run_id = $1', [runId]);
    expect(owners).toEqual([{ tenant: 't9' }]);
  });

  it("an interrupt's resolve and its run's end in one batch: one statement, each token keeps its first invalidation", async () => {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    await publishTogether(runId, [
      ['run.started', { workflowId: 'wf', owner: { tenant: 't1', principal: 'p' } }],
      ['interrupt.requested', requestedPayload(`${runId}:a:0`), 'a'],
      ['interrupt.requested', requestedPayload(`${runId}:b:0`), 'b'],
      ['interrupt.requested', requestedPayload(`${runId}:c:0`), 'c'],
    ]);
    await waitFor(() => row(`${runId}:c:0`), { what: 'minted' });
    const [earlier] = await publishTogether(runId, [['interrupt.resolved', { interruptId: `${runId}:c:0` }, 'c']]);
    await waitFor(async () => ((await row(`${runId}:c:0`))!.invalidated_at ? true : undefined), { what: 'c invalidated' });
    const ending = await publishTogether(runId, [
      ['interrupt.resolved', { interruptId: `${runId}:a:0` }, 'a'],
      ['run.completed', {}],
    ]);
    const changes = ending.flatMap((d) => tokenChangesFor(d, { ring, defaultTtlMs: TTL_MS }));
    expect(moduleRef.get(ResolutionTokenRepository).statementsFor(changes)).toHaveLength(1);
    await waitFor(async () => ((await row(`${runId}:b:0`))!.invalidated_at ? true : undefined), { what: 'b invalidated' });
    const at = async (id: string) => (await row(`${runId}:${id}:0`))!.invalidated_at!.toISOString();
    expect(await at('a')).toBe(ending[0]!.timestamp);
    expect(await at('b')).toBe(ending[1]!.timestamp);
    expect(await at('c')).toBe(earlier!.timestamp);
  });
});
