import { comparableRunEvent, type RunEventDoc } from '@openwop/contracts';
import { OpenWopClient } from '@openwop/sdk';
import { TEST_API_KEYS_JSON, TEST_KEYS } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { query, refusal, waitStatus } from './e2e-kit';

interface ForkResponse {
  readonly runId: string;
  readonly sourceRunId: string;
  readonly fromSeq: number;
  readonly mode: string;
  readonly status: string;
  readonly eventsUrl: string;
}

const forkPath = (runId: string) => `/v1/runs/${runId}:fork`;

/** A key of tenant t1 that may start and read runs but not answer interrupts (no `approvals:respond`). */
const FORKER = 'test_forker_' + 'g'.repeat(24);
const KEYS = JSON.stringify([
  ...(JSON.parse(TEST_API_KEYS_JSON) as unknown[]),
  {
    key: FORKER,
    scopes: ['runs:create', 'runs:read', 'manifest:read'],
    tenant: 't1',
    id: 'key-forker',
    principal: 'forker',
  },
]);
const comparable = (events: readonly RunEventDoc[]) =>
  events
    .map(comparableRunEvent)
    .filter((e) => e !== undefined)
    .map(({ type, nodeId, payload }) => ({ type, nodeId, payload }));

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('POST /v1/runs/{runId}:fork, %s mode', (mode) => {
  let hut: HostUnderTest;
  let client: OpenWopClient;
  let approvedRunId: string;

  beforeAll(async () => {
    hut = await MODES[mode]({ WOP_API_KEYS: KEYS });
    client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
    approvedRunId = (await client.createRun({ workflowId: 'conformance-approval' })).runId;
    await waitStatus(client, approvedRunId, 'waiting-approval');
    await client.call('POST', `/v1/runs/${approvedRunId}/interrupts/gate`, { action: 'accept' });
    await waitStatus(client, approvedRunId, 'completed');
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('discovery advertises replay and the route', async () => {
    const doc = await client.discovery();
    expect(doc.replay).toEqual({ supported: true, modes: ['replay', 'branch'] });
    expect(doc.endpoints).toContainEqual({
      method: 'POST',
      path: '/v1/runs/{runId}:fork',
      scope: 'runs:create runs:read',
    });
    const openapi = await client.call<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
    expect(Object.keys(openapi.paths)).toContain('/v1/runs/{runId}:fork');
  });

  it('replay of an accepted approval: 201, completes without asking anybody, reproduces the source, forkedFrom on run.started', async () => {
    // Over the second gateway too: the fork is decided by whichever engine instance owns the new run id.
    const gateway = hut.host.gateways[hut.host.gateways.length - 1]!;
    const forker = new OpenWopClient({ baseUrl: gateway, apiKey: TEST_KEYS.t1 });
    const fork = await forker.call<ForkResponse>('POST', forkPath(approvedRunId), { mode: 'replay' });
    expect(fork).toEqual({
      runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sourceRunId: approvedRunId,
      fromSeq: 0,
      mode: 'replay',
      status: expect.any(String),
      eventsUrl: expect.stringContaining(`/v1/runs/${fork.runId}/events`),
    });
    expect(fork.runId).not.toBe(approvedRunId);
    const snapshot = await waitStatus(client, fork.runId, 'completed');
    expect(snapshot).toMatchObject({ workflowId: 'conformance-approval', owner: { tenant: 't1' } });

    const events = await client.listEvents(fork.runId);
    const types = events.map((e) => e.type);
    expect(types).not.toContain('interrupt.requested');
    expect(types).not.toContain('node.suspended');
    expect(types).not.toContain('replay.diverged');
    expect(types[types.length - 1]).toBe('run.completed');
    const started = events.find((e) => e.type === 'run.started')!.payload as Record<string, unknown>;
    expect(started.forkedFrom).toEqual({ runId: approvedRunId, fromSeq: 0, mode: 'replay' });
    const source = await client.listEvents(approvedRunId);
    expect(started.owner).toEqual((source[0]!.payload as { owner: unknown }).owner);
    expect(comparable(events)).toEqual(comparable(source));
    // nobody was asked: no pending interrupt for the fork
    const listed = await client.call<{ interrupts: unknown[] }>('GET', `/v1/interrupts?runId=${fork.runId}`);
    expect(listed.interrupts).toEqual([]);
    // the source run is unmodified, and GET /v1/runs/{runId} is not shadowed by the fork route
    expect((await client.getRun(approvedRunId)).status).toBe('completed');
    expect((await client.listEvents(approvedRunId)).length).toBe(source.length);
  });

  it('replay from a sequence inside the wait copies the history and completes from the recorded answer', async () => {
    const source = await client.listEvents(approvedRunId);
    const fromSeq = source.find((e) => e.type === 'interrupt.resolved')!.sequence;
    const fork = await client.call<ForkResponse>('POST', forkPath(approvedRunId), {
      mode: 'replay',
      fromSeq,
      runOptionsOverlay: {},
    });
    expect(fork.fromSeq).toBe(fromSeq);
    await waitStatus(client, fork.runId, 'completed');
    const events = await client.listEvents(fork.runId);
    const types = events.map((e) => e.type);
    // fixed history verbatim; then the recorded resolution (the votes noted with it are not replayed) and the same run
    expect(types.slice(0, fromSeq)).toEqual(source.slice(0, fromSeq).map((e) => e.type));
    expect(types[fromSeq]).toBe('interrupt.resolved');
    expect(types.filter((t) => t === 'interrupt.requested')).toHaveLength(1);
    expect(comparable(events)).toEqual(comparable(source));
    expect(types).not.toContain('replay.diverged');
  });

  it('the fork belongs to the source owner, whoever forks it (replay.md §Fork ownership)', async () => {
    const t1b = (TEST_KEYS as Record<string, string>).t1b;
    if (!t1b) return; // needs a second principal of tenant t1
    const other = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: t1b });
    const fork = await other.call<ForkResponse>('POST', forkPath(approvedRunId), { mode: 'replay' });
    await waitStatus(client, fork.runId, 'completed');
    const started = (await client.listEvents(fork.runId))[0]!.payload as { owner: unknown };
    const source = (await client.listEvents(approvedRunId))[0]!.payload as { owner: unknown };
    expect(started.owner).toEqual(source.owner);
  });

  it('branch from the resolution: the fork waits on the gate again, and a reject takes the other path', async () => {
    const source = await client.listEvents(approvedRunId);
    const fromSeq = source.find((e) => e.type === 'interrupt.resolved')!.sequence;
    const fork = await client.call<ForkResponse>('POST', forkPath(approvedRunId), {
      mode: 'branch',
      fromSeq,
      runOptionsOverlay: { configurable: { recursionLimit: 10 } },
    });
    expect(fork).toMatchObject({ mode: 'branch', fromSeq });
    await waitStatus(client, fork.runId, 'waiting-approval');
    await client.call('POST', `/v1/runs/${fork.runId}/interrupts/gate`, { action: 'reject' });
    await waitStatus(client, fork.runId, 'failed');
    expect((await client.getRun(approvedRunId)).status).toBe('completed');
  });

  it('a fork that reuses a recorded approval needs approvals:respond; one from before the gate asks again and does not', async () => {
    const forker = new OpenWopClient({
      baseUrl: hut.host.gateways[hut.host.gateways.length - 1]!,
      apiKey: FORKER,
    });
    const source = await client.listEvents(approvedRunId);
    const resolvedAt = source.find((e) => e.type === 'interrupt.resolved')!.sequence;
    // The engine records a run in the transaction that decides it: a refused fork leaves no row.
    const engineRuns = async () =>
      (await query<{ n: number }>(hut.db.url, 'SELECT count(*)::int AS n FROM engine_runs'))[0]!.n;
    const runsBefore = await engineRuns();
    // A replay answers the gate from the record; a branch from past the resolution inherits it.
    for (const body of [
      { mode: 'replay' },
      { mode: 'replay', fromSeq: resolvedAt + 1 },
      { mode: 'branch', fromSeq: resolvedAt + 1 },
    ]) {
      const refused = await refusal(forker.call('POST', forkPath(approvedRunId), body));
      expect([refused.status, refused.code, refused.details]).toEqual([
        403,
        'forbidden',
        {
          scopeRequired: 'approvals:respond',
          sourceRunId: approvedRunId,
          reusedInterrupts: 1,
          resolvedAtSequence: resolvedAt,
        },
      ]);
      expect(refused.message).toContain('approvals:respond');
    }
    // Nothing was started by the refusals.
    expect(await engineRuns()).toBe(runsBefore);

    // From before the gate's answer: the fork asks again, and only a key that may answer does.
    const asksAgain = await forker.call<ForkResponse>('POST', forkPath(approvedRunId), {
      mode: 'branch',
      fromSeq: resolvedAt,
    });
    await waitStatus(client, asksAgain.runId, 'waiting-approval');
    const forkEvents = await client.listEvents(asksAgain.runId);
    expect(forkEvents.map((e) => e.type)).not.toContain('interrupt.resolved');
    const denied = await refusal(
      forker.call('POST', `/v1/runs/${asksAgain.runId}/interrupts/gate`, { action: 'accept' }),
    );
    expect([denied.status, denied.code]).toEqual([403, 'forbidden']);
    await client.call('POST', `/v1/runs/${asksAgain.runId}/interrupts/gate`, { action: 'accept' });
    await waitStatus(client, asksAgain.runId, 'completed');

    // A source with no answered interrupt replays for it, as before.
    const plain = (await client.createRun({ workflowId: 'conformance-noop' })).runId;
    await waitStatus(client, plain, 'completed');
    const replayed = await forker.call<ForkResponse>('POST', forkPath(plain), { mode: 'replay' });
    await waitStatus(client, replayed.runId, 'completed');

    // The same replay by a key that may answer goes through (the first test's), and reuses the answer.
    const allowed = await client.call<ForkResponse>('POST', forkPath(approvedRunId), { mode: 'replay' });
    await waitStatus(client, allowed.runId, 'completed');
  });

  it('refuses: unknown run 404, another tenant 404, fromSeq not in the log 422, replay with an overlay 400, bad mode 400, missing scope 403', async () => {
    const unknown = await refusal(
      client.call('POST', forkPath('00000000-0000-4000-8000-000000000000'), { mode: 'replay' }),
    );
    expect([unknown.status, unknown.code]).toEqual([404, 'not_found']);

    const otherTenant = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t2 });
    const hidden = await refusal(otherTenant.call('POST', forkPath(approvedRunId), { mode: 'replay' }));
    expect([hidden.status, hidden.code]).toEqual([404, 'not_found']);

    const outOfRange = await refusal(
      client.call('POST', forkPath(approvedRunId), { mode: 'replay', fromSeq: 9999 }),
    );
    expect([outOfRange.status, outOfRange.code]).toEqual([422, 'sequence_not_found']);
    expect(outOfRange.details).toMatchObject({ sourceRunId: approvedRunId, fromSeq: 9999 });

    const overlay = await refusal(
      client.call('POST', forkPath(approvedRunId), {
        mode: 'replay',
        runOptionsOverlay: { configurable: { model: 'x' } },
      }),
    );
    expect([overlay.status, overlay.code]).toEqual([400, 'validation_error']);

    for (const body of [
      {},
      { mode: 'rewind' },
      { mode: 'replay', fromSeq: -1 },
      { mode: 'branch' },
      { mode: 'replay', extra: 1 },
    ]) {
      const bad = await refusal(client.call('POST', forkPath(approvedRunId), body));
      expect([bad.status, bad.code]).toEqual([400, 'validation_error']);
    }

    const readonly = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.readonly });
    const forbidden = await refusal(readonly.call('POST', forkPath(approvedRunId), { mode: 'replay' }));
    expect([forbidden.status, forbidden.code, forbidden.details]).toEqual([
      403,
      'forbidden',
      { scopeRequired: 'runs:create' },
    ]);
  });
});
