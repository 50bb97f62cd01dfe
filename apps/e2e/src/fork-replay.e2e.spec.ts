import { comparableRunEvent, type RunEventDoc } from '@openwop/contracts';
import { OpenWopClient } from '@openwop/sdk';
import { TEST_KEYS } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal, waitStatus } from './e2e-kit';

interface ForkResponse {
  readonly runId: string;
  readonly sourceRunId: string;
  readonly fromSeq: number;
  readonly mode: string;
  readonly status: string;
  readonly eventsUrl: string;
}

const forkPath = (runId: string) => `/v1/runs/${runId}:fork`;
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
    hut = await MODES[mode]();
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
