import { randomUUID } from 'node:crypto';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { sendJson, workflowDefinition, type HeadedAnswer as Answer } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// The v2 interrupt rules (issue 30 item 3; interrupt.md, RFC 0213, RFC 0223) on runs created under
// major 2, both modes: a resolve's Idempotency-Key follows the v2 grammar and 128-bit floor
// (idempotency.md) and a retry under it replays the first answer; a rejection fails the gate with
// approval_rejected (retryable: false); a timeout never grants, even with onTimeout "approve"; a
// resolve after the run ended is 409 interrupt_already_resolved; a key per visit: a gate re-entered
// over a reject loop is asked again, and a replay fork asks nobody.

interface RunEvent {
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('v2 interrupt rules, %s mode', (mode) => {
  let hut: HostUnderTest;
  let base: string;

  const loop = `v2-reject-loop-${mode}`;

  beforeAll(async () => {
    hut = await MODES[mode]();
    base = hut.host.gateways[0]!;
    // A gate whose rejection loops back to it over an any_failed edge (RFC 0223 §A, row
    // 0223.reject-loopback-reasks); an acceptance goes on to `done`.
    const registered = await call('POST', '/v1/workflows', {
      body: workflowDefinition(
        loop,
        [
          { id: 'start', typeId: 'core.noop' },
          {
            id: 'gate',
            typeId: 'core.approvalGate',
            config: { title: 'ok?', actions: ['accept', 'reject'] },
          },
          { id: 'retry', typeId: 'core.noop' },
          { id: 'done', typeId: 'core.noop' },
        ],
        [
          ['start', 'gate', 'any_success'],
          ['retry', 'gate', 'any_success'],
          ['gate', 'retry', 'any_failed'],
          ['gate', 'done'],
        ],
      ),
    });
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await hut?.stop();
  });

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; key?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${TEST_KEYS.t1}`,
    };
    if (!path.startsWith('/v1/')) headers['openwop-version'] = '2';
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    return sendJson(`${base}${path}`, method, headers, options.body);
  }

  async function startV2(workflowId: string): Promise<string> {
    const created = await call('POST', '/runs', { body: { workflowId } });
    expect([created.status, created.headers.get('openwop-version')]).toEqual([201, '2.45']);
    return created.body.runId as string;
  }

  const waitStatus = (runId: string, status: string) =>
    waitFor(
      async () => {
        const run = await call('GET', `/runs/${runId}`);
        return run.body.status === status ? run.body : undefined;
      },
      { timeoutMs: 20_000, what: `run ${runId} ${status}` },
    );

  const eventsOf = async (runId: string): Promise<RunEvent[]> =>
    (await call('GET', `/runs/${runId}/events`)).body.events as RunEvent[];
  const only = (events: RunEvent[], type: string) => {
    const found = events.filter((e) => e.type === type);
    expect(found).toHaveLength(1);
    return found[0]!.payload;
  };

  it('a v2 resolve refuses an Idempotency-Key outside the grammar or under 128 bits; a retry under a good key replays', async () => {
    const runId = await startV2('conformance-approval');
    await waitStatus(runId, 'waiting-approval');
    const path = `/runs/${runId}/interrupts/gate`;
    const body = { resumeValue: { action: 'accept' } };
    for (const key of ['short-key', 'order:42-PxwqTnsdTFWdfgt6Tz4sEQ', '3f1c2a4e7b1d4c559d7e0b']) {
      const refused = await call('POST', path, { body, key });
      expect([refused.status, refused.body.error, refused.headers.get('openwop-version')]).toEqual([
        400,
        'idempotency_key_invalid',
        '2.45',
      ]);
    }
    expect((await call('GET', `/runs/${runId}`)).body.status).toBe('waiting-approval');

    const key = randomUUID();
    const first = await call('POST', path, { body, key });
    expect([first.status, first.body.status, first.headers.get('openwop-idempotent-replay')]).toEqual([
      200,
      'resolved',
      'false',
    ]);
    const retried = await call('POST', path, { body, key });
    expect([retried.status, retried.headers.get('openwop-idempotent-replay')]).toEqual([200, 'true']);
    expect(retried.body).toEqual(first.body);
    const other = await call('POST', path, { body: { resumeValue: { action: 'reject' } }, key });
    expect([other.status, other.body.error]).toEqual([409, 'idempotency_key_mismatch']);
    await waitStatus(runId, 'completed');
    expect((await eventsOf(runId)).filter((e) => e.type === 'interrupt.resolved')).toHaveLength(1);
  });

  it('a /v1 resolve keeps the v1 key rules: a short key is taken', async () => {
    const created = await call('POST', '/v1/runs', { body: { workflowId: 'conformance-approval' } });
    const runId = created.body.runId as string;
    await waitStatus(runId, 'waiting-approval');
    const resolved = await call('POST', `/v1/runs/${runId}/interrupts/gate`, {
      body: { resumeValue: { action: 'accept' } },
      key: `k-${mode}`,
    });
    expect(resolved.status).toBe(200);
    await waitStatus(runId, 'completed');
  });

  it('a rejection of a v2 run fails the gate with approval_rejected, retryable false; a later resolve is 409', async () => {
    const runId = await startV2('conformance-approval');
    await waitStatus(runId, 'waiting-approval');
    const path = `/runs/${runId}/interrupts/gate`;
    expect((await call('POST', path, { body: { resumeValue: { action: 'reject' } } })).status).toBe(200);
    const failed = await waitStatus(runId, 'failed');
    expect(failed.error).toMatchObject({ code: 'approval_rejected' });
    const events = await eventsOf(runId);
    expect(only(events, 'run.started')).toMatchObject({ protocolMajor: 2 });
    expect(only(events, 'node.failed')).toMatchObject({
      nodeId: 'gate',
      error: { code: 'approval_rejected', retryable: false, details: { reason: 'rejected' } },
    });
    expect(events.filter((e) => e.type === 'run.completed')).toEqual([]);
    const late = await call('POST', path, { body: { resumeValue: { action: 'accept' } } });
    expect([late.status, late.body.error]).toEqual([409, 'interrupt_already_resolved']);
  });

  it('a key per visit: a gate re-entered after a rejection raises a new interrupt and never returns the first answer', async () => {
    const runId = await startV2(loop);
    await waitStatus(runId, 'waiting-approval');
    const path = `/runs/${runId}/interrupts/gate`;
    expect((await call('POST', path, { body: { resumeValue: { action: 'reject' } } })).status).toBe(200);
    const requested = await waitFor(
      async () => {
        const events = await eventsOf(runId);
        const found = events.filter((e) => e.type === 'interrupt.requested');
        return found.length === 2 ? events : undefined;
      },
      { timeoutMs: 20_000, what: `run ${runId} asking again` },
    );
    expect((await waitStatus(runId, 'waiting-approval')).interrupt).toMatchObject({ nodeId: 'gate' });
    const [first, second] = requested.filter((e) => e.type === 'interrupt.requested').map((e) => e.payload);
    expect(second!.key).not.toBe(first!.key);
    expect(second!.interruptId).not.toBe(first!.interruptId);
    expect(requested.filter((e) => e.type === 'interrupt.resolved')).toHaveLength(1);
    expect(only(requested, 'node.failed')).toMatchObject({
      nodeId: 'gate',
      error: { code: 'approval_rejected' },
    });

    expect((await call('POST', path, { body: { resumeValue: { action: 'accept' } } })).status).toBe(200);
    await waitStatus(runId, 'completed');
    const events = await eventsOf(runId);
    const resolved = events.filter((e) => e.type === 'interrupt.resolved').map((e) => e.payload);
    expect(resolved.map((r) => [r.key, r.action])).toEqual([
      [first!.key, 'reject'],
      [second!.key, 'accept'],
    ]);
    expect(events.filter((e) => e.type === 'interrupt.requested')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'node.completed').map((e) => e.payload.nodeId)).toEqual(
      expect.arrayContaining(['gate', 'done']),
    );

    // Replay returns each visit's persisted resolution and asks nobody: no new interrupt.requested.
    const fork = await call('POST', `/runs/${runId}:fork`, { body: { mode: 'replay' } });
    expect([fork.status, fork.body.mode]).toEqual([201, 'replay']);
    const forkId = fork.body.runId as string;
    await waitStatus(forkId, 'completed');
    const replayed = await eventsOf(forkId);
    const types = replayed.map((e) => e.type);
    expect(types).not.toContain('interrupt.requested');
    expect(types).not.toContain('node.suspended');
    expect(types).not.toContain('replay.diverged');
    expect(only(replayed, 'run.started')).toMatchObject({
      protocolMajor: 2,
      forkedFrom: { runId, mode: 'replay' },
    });
    expect(replayed.filter((e) => e.type === 'node.completed').map((e) => e.payload.nodeId)).toEqual(
      events.filter((e) => e.type === 'node.completed').map((e) => e.payload.nodeId),
    );
  });

  it('a timeout never grants on a v2 run: onTimeout "approve" records a rejection', async () => {
    const runId = await startV2('conformance-approval-timeout-approve');
    const failed = await waitStatus(runId, 'failed');
    expect(failed.error).toMatchObject({ code: 'approval_rejected' });
    const events = await eventsOf(runId);
    expect(only(events, 'run.started')).toMatchObject({ protocolMajor: 2 });
    expect(only(events, 'interrupt.resolved')).toMatchObject({
      action: 'timeout',
      decision: 'rejected',
      resolvedBy: 'system:timeout',
    });
    expect(only(events, 'node.failed')).toMatchObject({
      error: {
        code: 'approval_rejected',
        retryable: false,
        details: { reason: 'timeout', onTimeout: 'approve' },
      },
    });
    expect(events.filter((e) => e.type === 'run.completed')).toEqual([]);
    const late = await call('POST', `/runs/${runId}/interrupts/gate`, {
      body: { resumeValue: { action: 'accept' } },
    });
    expect([late.status, late.body.error]).toEqual([409, 'interrupt_already_resolved']);
  });
});
