import { MAX_DELAY_MS, MAX_NODE_EXECUTIONS } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { decideRun, RunAlreadyExists, RunNotFound, RunTerminal, runOptions } from './run.decider';
import { evolveRun, initialRunState, newRunRecord } from './run.state';
import { BUILTIN_NODE_REGISTRY } from './builtin-nodes';
import { createNodeRegistry } from './executor';
import { defineNode, InterruptCancelledError } from './node';
import { context, fixture, LATER, payloadOf, record, resume, start, types, workflow } from './test-kit.spec';

describe('run decider: start', () => {
  it('given no run, when StartRun of a no-op workflow, then started → node → completed with sequences from 0', async () => {
    const { events, state } = await start(workflow([{ id: 'n' }]), { inputs: { a: 1 } });
    expect(events.map((e) => [e.sequence, e.type, e.nodeId])).toEqual([
      [0, 'run.started', undefined],
      [1, 'node.started', 'n'],
      [2, 'node.completed', 'n'],
      [3, 'run.completed', undefined],
    ]);
    expect(events[0]!.payload).toMatchObject({
      workflowId: 'wf',
      inputs: { a: 1 },
      owner: { tenant: 't1', principal: 'p1' },
    });
    expect(events.every((e) => e.timestamp === '2026-11-21T00:00:00.000Z')).toBe(true);
    expect(record(state)).toMatchObject({
      status: 'completed',
      lastSequence: 3,
      tenant: 't1',
      principal: 'p1',
    });
  });

  it('chains causation: the first event to the command, each next one to the previous event', async () => {
    const { events } = await start(workflow([{ id: 'a' }, { id: 'b' }], [['a', 'b']]));
    expect(events[0]!.causationId).toBe('c1');
    for (let i = 1; i < events.length; i++) expect(events[i]!.causationId).toBe(events[i - 1]!.eventId);
  });

  it('is deterministic: the same command and state decide the same events and state', async () => {
    const wf = fixture('conformance-approval-reject-routed');
    expect(await start(wf)).toEqual(await start(wf));
  });

  it('given a started run, refuses a second StartRun', async () => {
    const { state } = await start(workflow([{ id: 'n' }]));
    await expect(
      decideRun(
        { type: 'StartRun', runId: 'r1', workflow: workflow([{ id: 'n' }]), inputs: {}, context: context() },
        state,
      ),
    ).rejects.toThrow(RunAlreadyExists);
  });

  it('refuses a node type it cannot run, writing nothing', async () => {
    await expect(start(workflow([{ id: 'n', typeId: 'vendor.unknown' }]))).rejects.toThrow(DomainError);
  });

  it('runs nodes after their sources: A → B → C completes in that order', async () => {
    const { events } = await start(
      workflow(
        [{ id: 'c' }, { id: 'b' }, { id: 'a' }],
        [
          ['a', 'b'],
          ['b', 'c'],
        ],
      ),
    );
    expect(events.filter((e) => e.type === 'node.completed').map((e) => e.nodeId)).toEqual(['a', 'b', 'c']);
  });

  it('passes inputs and upstream outputs to a node, and sink outputs to run.completed', async () => {
    const { events } = await start(
      workflow(
        [
          { id: 'a', typeId: 'core.identity' },
          { id: 'b', typeId: 'core.identity', inputs: { extra: { type: 'static', value: 2 } } },
        ],
        [['a', 'b']],
      ),
      {
        inputs: { payload: { x: 1 } },
      },
    );
    expect(payloadOf(events, 'node.completed', 'b').outputs).toEqual({ payload: { x: 1 }, extra: 2 });
    expect(payloadOf(events, 'run.completed').outputs).toEqual({ payload: { x: 1 }, extra: 2 });
  });

  it('a failing node with no edge admitting the failure fails the run, naming the node', async () => {
    const { events, state } = await start(
      workflow([{ id: 'boom', typeId: 'core.fail' }, { id: 'after' }], [['boom', 'after']]),
    );
    expect(types(events)).toEqual(['run.started', 'node.started', 'node.failed', 'run.failed']);
    expect(payloadOf(events, 'node.failed').error).toEqual({
      code: 'conformance_test_failure',
      message: 'Intentional conformance failure',
      retryable: false,
    });
    expect(payloadOf(events, 'run.failed')).toMatchObject({
      error: { code: 'conformance_test_failure' },
      failedNodeId: 'boom',
    });
    expect(state.status).toBe('failed');
  });

  it('skips a node whose all_success edge is not satisfied; none_failed passes a skipped source', async () => {
    const wf = workflow(
      [{ id: 'boom', typeId: 'core.fail' }, { id: 'handler' }, { id: 'happy' }, { id: 'after-happy' }],
      [
        ['boom', 'handler', 'any_failed'],
        ['boom', 'happy', 'all_success'],
        ['happy', 'after-happy', 'none_failed'],
      ],
    );
    const { events, state } = await start(wf);
    expect(events.filter((e) => e.type.startsWith('node.')).map((e) => `${e.type} ${e.nodeId}`)).toEqual([
      'node.started boom',
      'node.failed boom',
      'node.started handler',
      'node.completed handler',
      'node.skipped happy',
      'node.started after-happy',
      'node.completed after-happy',
    ]);
    expect(state.status).toBe('completed');
  });

  it('core.delay with delayMs 0 completes at once; an out-of-range delayMs fails the node validation_error', async () => {
    expect(
      (await start(workflow([{ id: 'd', typeId: 'core.delay' }]), { inputs: { delayMs: 0 } })).state.status,
    ).toBe('completed');
    for (const delayMs of [-1, 1.5, MAX_DELAY_MS + 1, 'soon']) {
      const { events } = await start(workflow([{ id: 'd', typeId: 'core.delay' }]), { inputs: { delayMs } });
      expect(payloadOf(events, 'node.failed').error).toMatchObject({ code: 'validation_error' });
    }
  });

  it('fails a runaway loop at the recursion limit with workflow.loopback-limit', async () => {
    const wf = workflow(
      [{ id: 'a' }, { id: 'b' }],
      [
        ['a', 'b', 'any_success'],
        ['b', 'b', 'any_success'],
      ],
    );
    const { events, state } = await start(wf, { metadata: { configurable: { run: { recursionLimit: 5 } } } });
    expect(events.filter((e) => e.type === 'node.started')).toHaveLength(5);
    expect(payloadOf(events, 'workflow.loopback-limit')).toMatchObject({
      nodeId: 'b',
      iterations: 5,
      limit: 5,
    });
    expect(payloadOf(events, 'run.failed').error).toMatchObject({ code: 'recursion_limit_exceeded' });
    expect(state.status).toBe('failed');
  });

  it('reads run options from metadata.configurable, falling back to defaults', () => {
    expect(runOptions(undefined)).toEqual({ escalationThreshold: 0.7, recursionLimit: 100 });
    expect(runOptions({ configurable: { escalationThreshold: 0.4, run: { recursionLimit: 20 } } })).toEqual({
      escalationThreshold: 0.4,
      recursionLimit: 20,
    });
    expect(runOptions({ configurable: { escalationThreshold: 7, recursionLimit: -1 } })).toEqual({
      escalationThreshold: 0.7,
      recursionLimit: 100,
    });
  });

  it('clamps recursionLimit to limits.maxNodeExecutions (run-options.schema.json)', () => {
    expect(runOptions({ configurable: { recursionLimit: 8000 } }).recursionLimit).toBe(MAX_NODE_EXECUTIONS);
    expect(
      runOptions({ configurable: { run: { recursionLimit: MAX_NODE_EXECUTIONS } } }).recursionLimit,
    ).toBe(MAX_NODE_EXECUTIONS);
  });

  it('state is the fold of the events over the initial record', async () => {
    const wf = fixture('conformance-approval-reject-routed');
    const { events, state } = await start(wf);
    const init = newRunRecord({
      runId: 'r1',
      workflow: wf,
      inputs: {},
      options: runOptions(undefined),
      tenant: 't1',
      principal: 'p1',
    });
    expect(events.reduce(evolveRun, init)).toEqual(state);
    expect(evolveRun(initialRunState(), events[0]!)).toEqual(initialRunState());
  });
});

describe('run decider: cancel', () => {
  it('given a run suspended on an approval, when CancelRun, then node.cancelled for the gate and run.cancelled', async () => {
    const { state } = await start(fixture('conformance-approval'));
    const pending = record(state).pending!;
    const { events, state: after } = await decideRun(
      { type: 'CancelRun', runId: 'r1', reason: 'user asked', context: context('c9', LATER) },
      state,
    );
    expect(events.map((e) => [e.type, e.nodeId])).toEqual([
      ['node.cancelled', 'gate'],
      ['run.cancelled', undefined],
    ]);
    expect(events[0]!.payload).toEqual({
      nodeId: 'gate',
      reason: 'user asked',
      interruptId: pending.interruptId,
    });
    expect(events[1]!.payload).toEqual({ reason: 'user asked', cancelledBy: 'p1' });
    expect(record(after)).toMatchObject({ status: 'cancelled' });
    expect(record(after).pending).toBeUndefined();
  });

  it('re-enters the suspended node: its pending interrupt throws InterruptCancelledError, earlier answers replay, its clean-up emits are kept', async () => {
    const seen: string[] = [];
    const twoStep = defineNode({
      typeId: 'test.twoStep',
      async execute(ctx) {
        const first = await ctx.interrupt<{ action: string }>({
          kind: 'custom',
          data: { customKind: 'step', payload: { n: 1 } },
        });
        seen.push(`first:${first.action}`);
        try {
          await ctx.interrupt({ kind: 'custom', data: { customKind: 'step', payload: { n: 2 } } });
        } catch (e) {
          if (!(e instanceof InterruptCancelledError)) throw e;
          seen.push('cancelled');
          ctx.emit('log.appended', { level: 'info', message: 'released the lock' });
          throw e;
        }
        return {};
      },
    });
    const nodes = createNodeRegistry([...BUILTIN_NODE_REGISTRY.values(), twoStep]);
    const wf = workflow([{ id: 'n', typeId: 'test.twoStep' }]);
    const started = await decideRun(
      { type: 'StartRun', runId: 'r1', workflow: wf, inputs: {}, context: context() },
      initialRunState(),
      nodes,
    );
    const first = record(started.state).pending!;
    const resumed = await decideRun(
      {
        type: 'ResumeRun',
        runId: 'r1',
        interruptId: first.interruptId,
        outcome: 'resolved',
        resumeValue: { action: 'accept' },
        resolvedBy: 'p1',
        resolvedAt: LATER,
        context: context('c2', LATER),
      },
      started.state,
      nodes,
    );
    expect(record(resumed.state).pending?.interruptId).not.toBe(first.interruptId);
    seen.length = 0;
    const { events, state } = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c9', LATER) },
      resumed.state,
      nodes,
    );
    expect(seen).toEqual(['first:accept', 'cancelled']);
    expect(events.map((e) => [e.type, e.nodeId])).toEqual([
      ['log.appended', 'n'],
      ['node.cancelled', 'n'],
      ['run.cancelled', undefined],
    ]);
    expect(record(state).status).toBe('cancelled');
  });

  it('then a resume of the cancelled interrupt changes nothing', async () => {
    const { state } = await start(fixture('conformance-approval'));
    const pending = record(state).pending!;
    const { state: cancelled } = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c9', LATER) },
      state,
    );
    const late = await resume(cancelled, { action: 'accept' }, { interruptId: pending.interruptId });
    expect(late.events).toEqual([]);
    expect(late.state).toBe(cancelled);
  });

  it('refuses to cancel a terminal run (run_terminal) or an unknown one (not_found)', async () => {
    const { state } = await start(workflow([{ id: 'n' }]));
    await expect(decideRun({ type: 'CancelRun', runId: 'r1', context: context() }, state)).rejects.toThrow(
      RunTerminal,
    );
    await expect(
      decideRun({ type: 'CancelRun', runId: 'r1', context: context() }, initialRunState()),
    ).rejects.toThrow(RunNotFound);
  });
});

describe('run decider: fail (a command of the run was set aside)', () => {
  const error = {
    code: 'command_not_applied',
    message: 'interrupt.open could not be applied: boom',
    retryable: false,
  };

  it('given a run suspended on an approval, when FailRun, then node.failed for the gate and run.failed with the error', async () => {
    const { state } = await start(fixture('conformance-approval'));
    const { events, state: after } = await decideRun(
      { type: 'FailRun', runId: 'r1', error, context: context('c9', LATER) },
      state,
    );
    expect(events.map((e) => [e.type, e.nodeId])).toEqual([
      ['node.failed', 'gate'],
      ['run.failed', undefined],
    ]);
    expect(events[1]!.payload).toEqual({ error, failedNodeId: 'gate' });
    expect(record(after).status).toBe('failed');
  });

  it('leaves a terminal run as it is, and refuses an unknown one (not_found)', async () => {
    const { state } = await start(workflow([{ id: 'n' }]));
    const same = await decideRun({ type: 'FailRun', runId: 'r1', error, context: context() }, state);
    expect(same.events).toEqual([]);
    expect(same.state).toBe(state);
    await expect(
      decideRun({ type: 'FailRun', runId: 'r1', error, context: context() }, initialRunState()),
    ).rejects.toThrow(RunNotFound);
  });
});
