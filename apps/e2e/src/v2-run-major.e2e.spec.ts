import { TEST_KEYS, waitFor } from '@openwop/testing';
import { sendJson, workflowDefinition, type HeadedAnswer as Answer } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// A run keeps the major it was created under (ADR 0041), both modes: a child run that a major-2 run
// starts (core.subWorkflow) is a major-2 run (`run.started.protocolMajor: 2`), and so is a child
// started by a replay or branch fork of it; a major-1 parent's child stays a major-1 run. On a
// major-2 run the approval.* / clarification.* events are aliases of interrupt.requested /
// interrupt.resolved (their payloads verbatim; a quorum vote is a host log record); a major-1 run
// keeps the v1 payloads.

interface RunEvent {
  readonly type: string;
  readonly sequence: number;
  readonly payload: Record<string, unknown>;
}

const PARENT = 'conformance-interrupt-parent-child-cancel';

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('runs of major 2, %s mode', (mode) => {
  let hut: HostUnderTest;
  let base: string;

  beforeAll(async () => {
    hut = await MODES[mode]();
    base = hut.host.gateways[0]!;
  });
  afterAll(async () => {
    await hut?.stop();
  });

  async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${TEST_KEYS.t1}`,
    };
    if (!path.startsWith('/v1/')) headers['openwop-version'] = '2';
    return sendJson(`${base}${path}`, method, headers, body);
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
  const startedOf = async (runId: string) => {
    const [first] = await eventsOf(runId);
    expect(first?.type).toBe('run.started');
    return first!.payload;
  };

  /** The child run the parent waits on (its `childRuns`), once the child waits on its gate. */
  async function childOf(parentRunId: string): Promise<string> {
    const parent = await waitStatus(parentRunId, 'waiting-approval');
    const childRunId = (parent.childRuns as { runId: string }[] | undefined)?.[0]?.runId;
    expect(childRunId).toEqual(expect.any(String));
    await waitStatus(childRunId!, 'waiting-approval');
    return childRunId!;
  }

  async function completeThroughChild(parentRunId: string, childRunId: string): Promise<void> {
    const resolved = await call('POST', `/runs/${childRunId}/interrupts/child-gate`, {
      resumeValue: { action: 'accept' },
    });
    expect(resolved.status).toBe(200);
    await waitStatus(parentRunId, 'completed');
  }

  it('a child run started by a major-2 run is a major-2 run, and so is the child of its branch fork', async () => {
    const created = await call('POST', '/runs', { workflowId: PARENT });
    expect(created.status).toBe(201);
    const parentRunId = created.body.runId as string;
    expect(await startedOf(parentRunId)).toMatchObject({ protocolMajor: 2 });

    const childRunId = await childOf(parentRunId);
    const childStarted = await startedOf(childRunId);
    expect(childStarted).toMatchObject({ protocolMajor: 2 });
    await completeThroughChild(parentRunId, childRunId);

    // A branch fork from just after run.started re-executes the sub-workflow node: a new child.
    const fork = await call('POST', `/runs/${parentRunId}:fork`, { mode: 'branch', fromSeq: 1 });
    expect(fork.status).toBe(201);
    const forkId = fork.body.runId as string;
    expect(await startedOf(forkId)).toMatchObject({ protocolMajor: 2 });
    const forkChild = await childOf(forkId);
    expect(forkChild).not.toBe(childRunId);
    expect(await startedOf(forkChild)).toMatchObject({ protocolMajor: 2 });
    await completeThroughChild(forkId, forkChild);
  });

  it('a replay fork of a major-2 parent is a major-2 run; the child it starts is a major-2 run', async () => {
    const created = await call('POST', '/runs', { workflowId: PARENT });
    const parentRunId = created.body.runId as string;
    const childRunId = await childOf(parentRunId);
    await completeThroughChild(parentRunId, childRunId);

    const fork = await call('POST', `/runs/${parentRunId}:fork`, { mode: 'replay' });
    expect(fork.status).toBe(201);
    const forkId = fork.body.runId as string;
    expect(await startedOf(forkId)).toMatchObject({ protocolMajor: 2 });
    const forkChild = await childOf(forkId);
    expect(forkChild).not.toBe(childRunId);
    expect(await startedOf(forkChild)).toMatchObject({ protocolMajor: 2 });
    await completeThroughChild(forkId, forkChild);
  });

  it("a major-1 parent's child stays a major-1 run", async () => {
    const created = await call('POST', '/v1/runs', { workflowId: PARENT });
    expect(created.status).toBe(201);
    const parentRunId = created.body.runId as string;
    const childRunId = await childOf(parentRunId);
    expect(await startedOf(parentRunId)).not.toHaveProperty('protocolMajor');
    expect(await startedOf(childRunId)).not.toHaveProperty('protocolMajor');
    await completeThroughChild(parentRunId, childRunId);
  });

  const only = (events: RunEvent[], type: string) => {
    const found = events.filter((e) => e.type === type);
    expect(found).toHaveLength(1);
    return found[0]!.payload;
  };

  it('a major-2 approval: approval.requested and approval.received carry the interrupt events; a v1 run keeps v1 payloads', async () => {
    const created = await call('POST', '/runs', { workflowId: 'conformance-approval' });
    const runId = created.body.runId as string;
    await waitStatus(runId, 'waiting-approval');
    const resolved = await call('POST', `/runs/${runId}/interrupts/gate`, {
      resumeValue: { action: 'accept' },
    });
    expect(resolved.status).toBe(200);
    await waitStatus(runId, 'completed');
    // Read on both path spaces: the same log.
    for (const events of [
      await eventsOf(runId),
      (await call('GET', `/v1/runs/${runId}/events`)).body.events as RunEvent[],
    ]) {
      expect(only(events, 'approval.requested')).toEqual(only(events, 'interrupt.requested'));
      expect(only(events, 'approval.received')).toEqual(only(events, 'interrupt.resolved'));
      expect(only(events, 'approval.received')).toMatchObject({
        runId,
        nodeId: 'gate',
        action: 'accept',
        decision: 'approved',
      });
    }

    const v1 = await call('POST', '/v1/runs', { workflowId: 'conformance-approval' });
    const v1RunId = v1.body.runId as string;
    await waitStatus(v1RunId, 'waiting-approval');
    await call('POST', `/v1/runs/${v1RunId}/interrupts/gate`, { resumeValue: { action: 'accept' } });
    await waitStatus(v1RunId, 'completed');
    const v1Events = await eventsOf(v1RunId);
    expect(only(v1Events, 'approval.requested')).toMatchObject({
      nodeId: 'gate',
      title: 'Conformance approval',
    });
    expect(only(v1Events, 'approval.requested')).not.toHaveProperty('kind');
    expect(only(v1Events, 'approval.received')).toEqual({
      nodeId: 'gate',
      interruptId: expect.any(String),
      action: 'accept',
      decidedBy: 'key-t1',
      decidedAt: expect.any(String),
    });
  });

  it('a major-2 clarification: clarification.requested and clarification.resolved carry the interrupt events', async () => {
    const created = await call('POST', '/runs', { workflowId: 'conformance-clarification' });
    const runId = created.body.runId as string;
    const waiting = await waitStatus(runId, 'waiting-input');
    const resolved = await call('POST', `/runs/${runId}/interrupts/${waiting.currentNodeId as string}`, {
      resumeValue: { answers: { q1: 'blue' } },
    });
    expect(resolved.status).toBe(200);
    await waitStatus(runId, 'completed');
    const events = await eventsOf(runId);
    expect(only(events, 'clarification.requested')).toEqual(only(events, 'interrupt.requested'));
    expect(only(events, 'clarification.resolved')).toEqual(only(events, 'interrupt.resolved'));
  });

  it('a major-2 quorum: votes are host log records, one approval.received after the deciding vote', async () => {
    // The quorum fixture's open panel admits nobody under major 2 (approvers always bind): the same
    // gate with the test key on its list, three attested voters.
    const quorum = `v2-quorum-${mode}`;
    const registered = await call(
      'POST',
      '/v1/workflows',
      workflowDefinition(quorum, [
        {
          id: 'gate',
          typeId: 'core.approvalGate',
          config: {
            title: 'quorum',
            actions: ['accept', 'reject'],
            requiredApprovals: 3,
            rejectionPolicy: 'majority',
            approversList: ['key-t1'],
            voterAttribution: 'attested',
          },
        },
      ]),
    );
    expect(registered.status).toBe(201);
    const created = await call('POST', '/runs', { workflowId: quorum });
    const runId = created.body.runId as string;
    await waitStatus(runId, 'waiting-approval');
    for (const voter of ['approver-1', 'approver-2', 'approver-3']) {
      const voted = await call('POST', `/runs/${runId}/interrupts/gate`, {
        resumeValue: { action: 'accept', voter },
      });
      expect(voted.status).toBe(200);
    }
    await waitStatus(runId, 'completed');
    const events = await eventsOf(runId);
    const votes = events.filter(
      (e) => e.type === 'log.appended' && (e.payload.fields as { vote?: unknown } | undefined)?.vote,
    );
    expect(votes.map((e) => (e.payload.fields as { vote: { voter: string } }).vote.voter)).toEqual([
      'approver-1',
      'approver-2',
      'approver-3',
    ]);
    expect(only(events, 'approval.received')).toEqual(only(events, 'interrupt.resolved'));
    const types = events.map((e) => e.type);
    expect(types.indexOf('approval.received')).toBe(types.indexOf('interrupt.resolved') + 1);
  });
});
