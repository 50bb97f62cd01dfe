import { OpenWopApiError, OpenWopClient } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal, waitStatus } from './e2e-kit';

const RACE_INTERRUPTS = Number(process.env.E2E_RACE_INTERRUPTS ?? 100);
const RACE_RESOLVES = Number(process.env.E2E_RACE_RESOLVES ?? 50);

const resolvePath = (runId: string, nodeId: string) => `/v1/runs/${runId}/interrupts/${nodeId}`;

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('interrupts end to end, %s mode', (mode) => {
  let hut: HostUnderTest;
  let client: OpenWopClient;

  beforeAll(async () => {
    hut = await MODES[mode]();
    client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('approval: waits, is listed, accepts once, completes; a second answer gets 409', async () => {
    const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
    const waiting = await waitStatus(client, runId, 'waiting-approval');
    expect(waiting).toMatchObject({ currentNodeId: 'gate', interrupt: { kind: 'approval', nodeId: 'gate' } });
    const listed = await client.call<{ interrupts: { runId: string; kind: string }[] }>(
      'GET',
      `/v1/interrupts?kind=approval&runId=${runId}`,
    );
    expect(listed.interrupts).toEqual([expect.objectContaining({ runId, kind: 'approval' })]);

    const resolved = await client.call<{ status: string }>('POST', resolvePath(runId, 'gate'), {
      action: 'accept',
    });
    expect(resolved.status).toBe('resolved');
    await waitStatus(client, runId, 'completed');
    const again = await refusal(client.call('POST', resolvePath(runId, 'gate'), { action: 'accept' }));
    expect([again.status, again.code]).toEqual([409, 'interrupt_already_resolved']);

    const types = (await client.listEvents(runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'interrupt.requested')).toHaveLength(1);
    for (const t of [
      'interrupt.requested',
      'node.suspended',
      'interrupt.resolved',
      'approval.received',
      'node.resumed',
      'run.completed',
    ]) {
      expect(types).toContain(t);
    }
    expect(types.indexOf('node.suspended')).toBeLessThan(types.indexOf('interrupt.resolved'));
    const received = (await client.listEvents(runId)).find((e) => e.type === 'approval.received');
    expect((received?.payload as { decidedBy?: string }).decidedBy).toBe('key-t1');
    const after = await client.call<{ interrupts: unknown[] }>('GET', `/v1/interrupts?runId=${runId}`);
    expect(after.interrupts).toEqual([]);
  });

  it('approval: an action the gate does not offer is refused and the run keeps waiting', async () => {
    const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
    await waitStatus(client, runId, 'waiting-approval');
    const bad = await refusal(
      client.call('POST', resolvePath(runId, 'gate'), {
        action: 'refine',
        refineFeedback: { scope: 'whole', text: 'x' },
      }),
    );
    expect([bad.status, bad.code]).toEqual([400, 'validation_error']);
    const wrongNode = await refusal(client.call('POST', resolvePath(runId, 'nope'), { action: 'accept' }));
    expect([wrongNode.status, wrongNode.code]).toEqual([404, 'interrupt_not_found']);
    const otherTenant = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t2 });
    expect(
      (await refusal(otherTenant.call('POST', resolvePath(runId, 'gate'), { action: 'accept' }))).status,
    ).toBe(404);
    const readonly = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.readonly });
    expect(
      (await refusal(readonly.call('POST', resolvePath(runId, 'gate'), { action: 'accept' }))).status,
    ).toBe(403);
    expect((await client.getRun(runId)).status).toBe('waiting-approval');
    // the legacy surface normalizes `decision: approved` to accept
    await client.call('POST', `/v1/runs/${runId}/approvals/gate`, { decision: 'approved' });
    await waitStatus(client, runId, 'completed');
  });

  it('clarification: waits for input, takes answers by question id, completes', async () => {
    const { runId } = await client.createRun({ workflowId: 'conformance-clarification' });
    await waitStatus(client, runId, 'waiting-input');
    const missing = await refusal(client.call('POST', resolvePath(runId, 'ask'), { answers: {} }));
    expect(missing.code).toBe('validation_error');
    await client.call('POST', resolvePath(runId, 'ask'), { answers: { q1: 'blue' } });
    await waitStatus(client, runId, 'completed');
  });

  it('cancel while waiting: the run is cancelled and a later answer gets 409 interrupt_already_resolved (RFC 0213)', async () => {
    const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
    await waitStatus(client, runId, 'waiting-approval');
    const cancelled = await client.call<{ status: string }>('POST', `/v1/runs/${runId}/cancel`, {});
    expect(['cancelled', 'cancelling']).toContain(cancelled.status);
    await waitStatus(client, runId, 'cancelled');
    const late = await refusal(client.call('POST', resolvePath(runId, 'gate'), { action: 'accept' }));
    expect([late.status, late.code]).toEqual([409, 'interrupt_already_resolved']);
    const twice = await client.call<{ status: string }>('POST', `/v1/runs/${runId}/cancel`, {});
    expect(twice.status).toBe('cancelled'); // idempotent: 200 with the run's terminal status
  });

  it('timeout: an approval gate nobody answers times out to reject from the durable timer', async () => {
    const { runId } = await client.createRun({ workflowId: 'conformance-approval-timeout' });
    await waitStatus(client, runId, 'waiting-approval');
    const done = await waitFor(
      async () => {
        const s = await client.getRun(runId);
        return ['failed', 'completed'].includes(s.status) ? s : undefined;
      },
      { timeoutMs: 15_000, what: 'timed-out gate to finish' },
    );
    expect(done.status).toBe('failed');
    const resolvedEvent = (await client.listEvents(runId)).find((e) => e.type === 'interrupt.resolved');
    expect(resolvedEvent).toBeDefined();
  });

  it(`exactly one winner: ${RACE_INTERRUPTS} interrupts × ${RACE_RESOLVES} concurrent resolves over every gateway`, async () => {
    const clients = hut.host.gateways.map((g) => new OpenWopClient({ baseUrl: g, apiKey: TEST_KEYS.t1 }));
    const runIds = await Promise.all(
      Array.from(
        { length: RACE_INTERRUPTS },
        async () => (await client.createRun({ workflowId: 'conformance-approval' })).runId,
      ),
    );
    await Promise.all(runIds.map((r) => waitStatus(client, r, 'waiting-approval')));
    // Each interrupt gets its RACE_RESOLVES answers at once; interrupts go in waves of 10, so the
    // client opens at most 10 × RACE_RESOLVES connections at a time (the listen backlog is 511).
    const outcomes: (number | string)[] = [];
    for (let wave = 0; wave < runIds.length; wave += 10) {
      const settled = await Promise.all(
        runIds.slice(wave, wave + 10).flatMap((runId) =>
          Array.from({ length: RACE_RESOLVES }, (_, i) =>
            clients[i % clients.length]!.call('POST', resolvePath(runId, 'gate'), { action: 'accept' })
              .then(() => 200)
              .catch((e: unknown) => (e instanceof OpenWopApiError ? `${e.status} ${e.code}` : String(e))),
          ),
        ),
      );
      outcomes.push(...settled);
    }
    const counts = outcomes.reduce<Record<string, number>>(
      (acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }),
      {},
    );
    expect(counts).toEqual({
      200: RACE_INTERRUPTS,
      '409 interrupt_already_resolved': RACE_INTERRUPTS * (RACE_RESOLVES - 1),
    });
    await Promise.all(runIds.map((r) => waitStatus(client, r, 'completed', 30_000)));
    for (const r of runIds) {
      const types = (await client.listEvents(r)).map((e) => e.type);
      expect(types.filter((t) => t === 'interrupt.resolved')).toHaveLength(1);
      expect(types.filter((t) => t === 'run.completed')).toHaveLength(1);
    }
  });

  it('workflows: registers a definition for the tenant, reads it back, and runs it', async () => {
    const definition = {
      id: `wf-${mode}-approve-then-noop`,
      name: 'approve then noop',
      version: '1.0.0',
      nodes: [
        { id: 'gate', typeId: 'core.approvalGate', config: { title: 'ok?', actions: ['accept', 'reject'] } },
        { id: 'after', typeId: 'core.noop', config: {} },
      ],
      edges: [{ id: 'e1', sourceNodeId: 'gate', targetNodeId: 'after' }],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    };
    const created = await client.call<{ workflowId: string }>('POST', '/v1/workflows', definition);
    expect(created.workflowId).toBe(definition.id);
    expect(await client.call('GET', `/v1/workflows/${definition.id}`)).toMatchObject({ id: definition.id });
    const otherTenant = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t2 });
    expect((await refusal(otherTenant.call('GET', `/v1/workflows/${definition.id}`))).status).toBe(404);
    const bad = await refusal(
      client.call('POST', '/v1/workflows', { ...definition, nodes: [{ id: 'x', typeId: 'vendor.unknown' }] }),
    );
    expect(bad.code).toBe('validation_error');
    const { runId } = await client.createRun({ workflowId: definition.id });
    await waitStatus(client, runId, 'waiting-approval');
    await client.call('POST', resolvePath(runId, 'gate'), { resumeValue: { action: 'accept' } });
    const done = await waitStatus(client, runId, 'completed');
    expect(done.workflowId).toBe(definition.id);
  });

  it('workflows: registers a YAML definition (Content-Type application/yaml); broken YAML is a validation_error', async () => {
    const id = `wf-${mode}-yaml`;
    const yamlBody = [
      `id: ${id}`,
      'name: yaml approval',
      'version: 1.0.0',
      'nodes:',
      '  - id: gate',
      '    typeId: core.approvalGate',
      '    config: { title: "ok?", actions: [accept, reject] }',
      'edges: []',
    ].join('\n');
    const post = (body: string) =>
      fetch(`${hut.host.gateways[0]!}/v1/workflows`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEYS.t1}`, 'content-type': 'application/yaml' },
        body,
      });
    const created = await post(yamlBody);
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ workflowId: id });
    expect(await client.call('GET', `/v1/workflows/${id}`)).toMatchObject({ id, nodes: [{ id: 'gate' }] });
    const broken = await post('id: [unclosed\nnodes: {');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({
      error: 'validation_error',
      message: 'The body is not valid YAML.',
    });
    const { runId } = await client.createRun({ workflowId: id });
    await waitStatus(client, runId, 'waiting-approval');
  });
});
