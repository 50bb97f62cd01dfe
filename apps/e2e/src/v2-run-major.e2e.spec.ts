import { TEST_KEYS, waitFor } from '@openwop/testing';
import { sendJson, type HeadedAnswer as Answer } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// A run keeps the major it was created under (ADR 0041), both modes: a child run that a major-2 run
// starts (core.subWorkflow) is a major-2 run (`run.started.protocolMajor: 2`), and so is a child
// started by a replay or branch fork of it; a major-1 parent's child stays a major-1 run.

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
});
