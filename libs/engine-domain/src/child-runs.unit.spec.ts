import { CHILD_ENDED, childRunIdFor, type ChildRunChange } from './child-runs';
import { forkSourceOf } from './fork-source';
import { decideRun, publicRunStatus, type RunDecision } from './run.decider';
import { decideFork } from './replay';
import { initialRunState, type RunState } from './run.state';
import { context, LATER, payloadOf, record, start, types, workflow } from './test-kit.spec';

const PARENT = workflow(
  [
    {
      id: 'invoke',
      typeId: 'core.subWorkflow',
      config: { workflowId: 'child-wf', inputs: { payload: { fromParent: true } } },
    },
    { id: 'after' },
  ],
  [['invoke', 'after']],
);
const CHILD_ID = childRunIdFor('r1', 'invoke', 0, 0);

const changed = (
  state: RunState,
  change: Omit<ChildRunChange, 'childRunId'> & { childRunId?: string },
  commandId = 'c-child',
): Promise<RunDecision> =>
  decideRun(
    {
      type: 'ChildRunChanged',
      runId: 'r1',
      change: { childRunId: CHILD_ID, ...change },
      context: context(commandId, LATER),
    },
    state,
  );
const cancel = (
  state: RunState,
  extra: { parentRunId?: string; reason?: string } = {},
): Promise<RunDecision> =>
  decideRun({ type: 'CancelRun', runId: 'r1', ...extra, context: context('c-cancel', LATER) }, state);

describe('child runs: core.subWorkflow', () => {
  it('starts a child with a derived, UUID-shaped id and waits on it: running, nothing else executes', async () => {
    const d = await start(PARENT);
    expect(CHILD_ID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(childRunIdFor('r1', 'invoke', 0, 0)).toBe(CHILD_ID);
    expect(childRunIdFor('r1', 'invoke', 1, 0)).not.toBe(CHILD_ID);
    expect(types(d.events)).toEqual(['run.started', 'node.started', 'node.dispatched', 'log.appended']);
    expect(payloadOf(d.events, 'node.dispatched')).toEqual({
      childRunId: CHILD_ID,
      childWorkflowId: 'child-wf',
      childStatus: 'running',
    });
    expect(d.startChild).toEqual({
      nodeId: 'invoke',
      runId: CHILD_ID,
      workflowId: 'child-wf',
      inputs: { payload: { fromParent: true } },
      parent: { runId: 'r1', nodeId: 'invoke' },
    });
    expect(record(d.state).child?.runId).toBe(CHILD_ID);
    expect(publicRunStatus(d.state)).toBe('running');
  });

  it("shows the child's wait on the parent's node, and takes it back when the child goes on", async () => {
    const { state } = await start(PARENT);
    const waiting = await changed(state, {
      status: 'waiting-approval',
      interruptId: 'ci:gate:0',
      kind: 'approval',
    });
    expect(types(waiting.events)).toEqual(['node.suspended']);
    expect(payloadOf(waiting.events, 'node.suspended')).toMatchObject({
      nodeId: 'invoke',
      interruptId: 'ci:gate:0',
      kind: 'approval',
      childRunId: CHILD_ID,
    });
    expect(publicRunStatus(waiting.state)).toBe('waiting-approval');
    expect(waiting.startChild).toBeUndefined();
    // The same wait again (a redelivery) writes nothing.
    expect((await changed(waiting.state, { status: 'waiting-approval', kind: 'approval' })).events).toEqual(
      [],
    );
    const going = await changed(waiting.state, { status: 'running' }, 'c-child-2');
    expect(types(going.events)).toEqual(['node.resumed']);
    expect(publicRunStatus(going.state)).toBe('running');
  });

  it('goes on with the child outputs on `result` once the child completed', async () => {
    const { state } = await start(PARENT);
    const waiting = await changed(state, { status: 'waiting-approval', kind: 'approval' });
    const done = await changed(waiting.state, { status: 'completed', outputs: { echoed: 1 } }, 'c-done');
    expect(types(done.events)).toEqual([
      'node.resumed',
      'log.appended',
      'node.completed',
      'node.started',
      'node.completed',
      'run.completed',
    ]);
    expect((payloadOf(done.events, 'log.appended') as { fields: unknown }).fields).toEqual({
      event: CHILD_ENDED,
      childRunId: CHILD_ID,
      status: 'completed',
      outputs: { echoed: 1 },
    });
    expect(done.events.find((e) => e.type === 'node.completed' && e.nodeId === 'invoke')?.payload).toEqual({
      nodeId: 'invoke',
      outputs: { result: { echoed: 1 }, childRunId: CHILD_ID },
    });
    expect(record(done.state).child).toBeUndefined();
  });

  it.each([
    ['failed', 'child_run_failed'],
    ['cancelled', 'child_run_cancelled'],
  ] as const)(
    'a child that %s fails the node and the run, naming the child (a deterministic parent outcome)',
    async (status, code) => {
      const { state } = await start(PARENT);
      const ended = await changed(state, {
        status,
        ...(status === 'failed' ? { error: { code: 'boom', message: 'b', retryable: false } } : {}),
      });
      expect(types(ended.events)).toEqual(['log.appended', 'node.failed', 'run.failed']);
      expect(payloadOf(ended.events, 'run.failed')).toMatchObject({
        failedNodeId: 'invoke',
        error: { code, details: { childRunId: CHILD_ID } },
      });
    },
  );

  it('a change of a child the run does not wait on changes nothing', async () => {
    const { state } = await start(PARENT);
    expect((await changed(state, { childRunId: 'other', status: 'completed' })).events).toEqual([]);
    const cancelled = await cancel(state);
    expect((await changed(cancelled.state, { status: 'cancelled' })).events).toEqual([]);
    expect((await changed(initialRunState(), { status: 'completed' })).events).toEqual([]);
  });

  it('a cancelled parent names its child to cancel; a direct cancel carries no parentRunId', async () => {
    const { state } = await start(PARENT);
    const d = await cancel(state, { reason: 'stop' });
    expect(types(d.events)).toEqual(['node.cancelled', 'run.cancelled']);
    expect(payloadOf(d.events, 'run.cancelled')).toEqual({ reason: 'stop', cancelledBy: 'p1' });
    expect(d.cancelChild).toEqual({ runId: CHILD_ID, parentRunId: 'r1' });
    expect(record(d.state).child).toBeUndefined();
  });

  it('a child cancelled by its parent says so: reason parent-cancelled, parentRunId and parentNodeId', async () => {
    const child = await decideRun(
      {
        type: 'StartRun',
        runId: CHILD_ID,
        workflow: workflow([{ id: 'child-gate', typeId: 'core.approvalGate' }]),
        inputs: {},
        parent: { runId: 'r1', nodeId: 'invoke' },
        context: context(),
      },
      initialRunState(),
    );
    expect(payloadOf(child.events, 'run.started')).toMatchObject({
      parentRunId: 'r1',
      parentNodeId: 'invoke',
    });
    expect(publicRunStatus(child.state)).toBe('waiting-approval');
    const d = await decideRun(
      {
        type: 'CancelRun',
        runId: CHILD_ID,
        reason: 'parent-cancelled',
        parentRunId: 'r1',
        context: context('c-x', LATER),
      },
      child.state,
    );
    expect(payloadOf(d.events, 'run.cancelled')).toEqual({
      reason: 'parent-cancelled',
      cancelledBy: 'p1',
      parentRunId: 'r1',
      parentNodeId: 'invoke',
    });
    expect(d.cancelChild).toBeUndefined();
  });

  it('refuses a subWorkflow without workflowId or with waitForCompletion false', async () => {
    for (const config of [{}, { workflowId: 'x', waitForCompletion: false }]) {
      const d = await start(workflow([{ id: 'invoke', typeId: 'core.subWorkflow', config }]));
      expect(payloadOf(d.events, 'run.failed')).toMatchObject({ error: { code: 'validation_error' } });
      expect(d.startChild).toBeUndefined();
    }
  });
});

describe('child runs of a fork', () => {
  it.each(['branch', 'replay'] as const)(
    'a %s fork whose execution starts a child asks the host to start it, under its own derived id',
    async (mode) => {
      const { events } = await start(PARENT);
      const fromSeq = mode === 'branch' ? 1 : 0;
      const source = forkSourceOf(events, fromSeq, mode);
      const fork = await decideFork(
        {
          type: 'ForkRun',
          runId: 'fork',
          sourceRunId: 'r1',
          mode,
          fromSeq,
          workflow: PARENT,
          inputs: source.started.inputs ?? {},
          history: source.history,
          resolutions: source.resolutions,
          expected: source.expected,
          context: { commandId: 'f0', now: LATER, tenant: 't1', principal: 'p1' },
        },
        initialRunState(),
      );
      const forkChild = childRunIdFor('fork', 'invoke', 0, 0);
      expect(forkChild).not.toBe(CHILD_ID);
      expect(fork.startChild).toEqual({
        nodeId: 'invoke',
        runId: forkChild,
        workflowId: 'child-wf',
        inputs: { payload: { fromParent: true } },
        parent: { runId: 'fork', nodeId: 'invoke' },
      });
    },
  );
});
