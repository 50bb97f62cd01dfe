import { TIMER_FIRED, TIMER_SCHEDULED, type RunEventDoc } from '@openwop/contracts';
import { forkSourceOf } from './fork-source';
import { decideFork } from './replay';
import {
  decideRun,
  RunAlreadyPaused,
  RunNotFound,
  RunNotPaused,
  RunPauseDraining,
  RunTerminal,
  publicRunStatus,
  type RunDecision,
} from './run.decider';
import { PAUSE_REQUESTED } from '@openwop/contracts';
import { initialRunState, type RunState } from './run.state';
import {
  context,
  fixture,
  LATER,
  NOW,
  payloadOf,
  record,
  resume,
  start,
  types,
  workflow,
} from './test-kit.spec';

const DELAY = workflow([{ id: 'wait', typeId: 'core.delay' }, { id: 'done' }], [['wait', 'done']]);

const fire = (
  state: RunState,
  timerKey = record(state).timer?.key ?? 'none',
  commandId = 'c-fire',
): Promise<RunDecision> =>
  decideRun({ type: 'FireTimer', runId: 'r1', timerKey, context: context(commandId, LATER) }, state);
const pause = (state: RunState, commandId = 'c-pause'): Promise<RunDecision> =>
  decideRun(
    {
      type: 'PauseRun',
      runId: 'r1',
      drainPolicy: 'immediate',
      reason: 'ops',
      context: context(commandId, LATER),
    },
    state,
  );
const drain = (state: RunState, commandId = 'c-drain'): Promise<RunDecision> =>
  decideRun(
    {
      type: 'PauseRun',
      runId: 'r1',
      drainPolicy: 'drain-current-node',
      reason: 'ops',
      context: context(commandId, LATER),
    },
    state,
  );
const unpause = (state: RunState, commandId = 'c-unpause'): Promise<RunDecision> =>
  decideRun({ type: 'UnpauseRun', runId: 'r1', context: context(commandId, LATER) }, state);
const timerFields = (events: readonly RunEventDoc[], event: string): Record<string, unknown> | undefined =>
  events
    .filter((e) => e.type === 'log.appended')
    .map((e) => (e.payload as { fields?: Record<string, unknown> }).fields)
    .find((f) => f?.event === event);

describe('durable timers: core.delay', () => {
  it('waits on a timer: the run stays running, the node active, the timer due at now + delayMs', async () => {
    const { events, state } = await start(DELAY, { inputs: { delayMs: 1500 } });
    expect(types(events)).toEqual(['run.started', 'node.started', 'log.appended']);
    expect(timerFields(events, TIMER_SCHEDULED)).toEqual({
      event: TIMER_SCHEDULED,
      timerKey: 'r1:wait:timer:0:0',
      delayMs: 1500,
      dueAt: '2026-11-21T00:00:01.500Z',
    });
    expect(record(state)).toMatchObject({ status: 'running', active: { nodeId: 'wait' } });
    expect(record(state).timer).toEqual({
      nodeId: 'wait',
      key: 'r1:wait:timer:0:0',
      delayMs: 1500,
      dueAt: '2026-11-21T00:00:01.500Z',
    });
    expect(publicRunStatus(state)).toBe('running');
  });

  it('reads delayMs from config before inputs', async () => {
    const wf = workflow([{ id: 'wait', typeId: 'core.delay', config: { delayMs: 20 } }]);
    const { state } = await start(wf, { inputs: { delayMs: 5000 } });
    expect(record(state).timer?.delayMs).toBe(20);
  });

  it('when the timer fires, records it and goes on to the end; a second firing changes nothing', async () => {
    const started = await start(DELAY, { inputs: { delayMs: 1000 } });
    const fired = await fire(started.state);
    expect(types(fired.events)).toEqual([
      'log.appended',
      'node.completed',
      'node.started',
      'node.completed',
      'run.completed',
    ]);
    expect(timerFields(fired.events, TIMER_FIRED)).toMatchObject({
      timerKey: 'r1:wait:timer:0:0',
      firedAt: LATER,
    });
    expect(fired.events.some((e) => e.type === 'replay.diverged')).toBe(false);
    expect(record(fired.state).timer).toBeUndefined();
    const again = await fire(fired.state, 'r1:wait:timer:0:0', 'c-fire-2');
    expect(again.events).toEqual([]);
  });

  it('ignores a firing of a timer the run does not wait on', async () => {
    const { state } = await start(DELAY, { inputs: { delayMs: 1000 } });
    expect((await fire(state, 'r1:wait:timer:9:0')).events).toEqual([]);
  });

  it('cancel during the wait cancels the node and the run, drops the timer, and a later firing is a no-op', async () => {
    const { state } = await start(DELAY, { inputs: { delayMs: 1000 } });
    const key = record(state).timer!.key;
    const cancelled = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c-cancel', LATER) },
      state,
    );
    expect(types(cancelled.events)).toEqual(['node.cancelled', 'run.cancelled']);
    expect(record(cancelled.state).timer).toBeUndefined();
    expect((await fire(cancelled.state, key)).events).toEqual([]);
  });
});

describe('pause and resume', () => {
  it('pauses a run waiting on a timer; the firing is recorded but the run goes on only at resume', async () => {
    const { state } = await start(DELAY, { inputs: { delayMs: 1000 } });
    const paused = await pause(state);
    expect(types(paused.events)).toEqual(['run.paused']);
    expect(payloadOf(paused.events, 'run.paused')).toMatchObject({
      reason: 'ops',
      drainPolicy: 'immediate',
      pausedAt: LATER,
    });
    expect(publicRunStatus(paused.state)).toBe('paused');
    const fired = await fire(paused.state);
    expect(types(fired.events)).toEqual(['log.appended']);
    expect(publicRunStatus(fired.state)).toBe('paused');
    const resumed = await unpause(fired.state);
    expect(types(resumed.events)).toEqual([
      'run.resumed',
      'node.completed',
      'node.started',
      'node.completed',
      'run.completed',
    ]);
    expect(resumed.state.status).toBe('completed');
  });

  it('resume before the timer is due leaves the run waiting on it', async () => {
    const { state } = await start(DELAY, { inputs: { delayMs: 1000 } });
    const resumed = await unpause((await pause(state)).state);
    expect(types(resumed.events)).toEqual(['run.resumed']);
    expect(publicRunStatus(resumed.state)).toBe('running');
    expect(record(resumed.state).timer).toBeDefined();
  });

  it('an interrupt answered while paused is recorded; the node goes on at resume', async () => {
    const { state } = await start(fixture('conformance-approval'));
    expect(publicRunStatus(state)).toBe('waiting-approval');
    const paused = await pause(state);
    const answered = await resume(paused.state, { action: 'accept' });
    expect(types(answered.events)).toContain('interrupt.resolved');
    expect(types(answered.events)).not.toContain('run.completed');
    expect(publicRunStatus(answered.state)).toBe('paused');
    const resumed = await unpause(answered.state);
    expect(types(resumed.events).at(-1)).toBe('run.completed');
  });

  it('refuses: pause of a paused run (409 with pausedAt), resume of a run not paused, pause of a terminal or unknown run', async () => {
    const { state } = await start(DELAY, { inputs: { delayMs: 1000 } });
    const paused = await pause(state);
    await expect(pause(paused.state, 'c-pause-2')).rejects.toMatchObject({
      constructor: RunAlreadyPaused,
      code: 'run_already_paused',
      details: { runStatus: 'paused', pausedAt: LATER },
    });
    await expect(unpause(state)).rejects.toMatchObject({
      constructor: RunNotPaused,
      details: { runStatus: 'running' },
    });
    const done = await start(workflow([{ id: 'n' }]));
    await expect(pause(done.state)).rejects.toThrow(RunTerminal);
    await expect(unpause(done.state)).rejects.toMatchObject({ details: { runStatus: 'completed' } });
    await expect(pause(initialRunState())).rejects.toThrow(RunNotFound);
  });

  it('drain-current-node while the delay node executes: run.paused only after its node.completed, and nothing after', async () => {
    const { state } = await start(DELAY, { inputs: { delayMs: 1000 } });
    const requested = await drain(state);
    // Recorded, not paused: the delay node is still executing.
    expect(types(requested.events)).toEqual(['log.appended']);
    expect(timerFields(requested.events, PAUSE_REQUESTED)).toMatchObject({
      drainPolicy: 'drain-current-node',
      nodeId: 'wait',
      reason: 'ops',
    });
    expect(publicRunStatus(requested.state)).toBe('running');
    expect(record(requested.state).pauseRequested).toMatchObject({ nodeId: 'wait', requestedAt: LATER });
    // A second drain while the first waits is 409; an immediate one pauses at once and ends the wait.
    await expect(drain(requested.state, 'c-drain-2')).rejects.toMatchObject({
      constructor: RunPauseDraining,
      code: 'run_already_paused',
      details: { runStatus: 'running', pauseRequestedAt: LATER },
    });
    const fired = await fire(requested.state);
    expect(types(fired.events)).toEqual(['log.appended', 'node.completed', 'run.paused']);
    expect(payloadOf(fired.events, 'run.paused')).toMatchObject({
      reason: 'ops',
      drainPolicy: 'drain-current-node',
      pausedAt: LATER,
    });
    expect(publicRunStatus(fired.state)).toBe('paused');
    expect(record(fired.state).pauseRequested).toBeUndefined();
    const resumed = await unpause(fired.state);
    expect(types(resumed.events)).toEqual(['run.resumed', 'node.started', 'node.completed', 'run.completed']);
    // The other policy on the same moment: `immediate` pauses before the node completes.
    const cut = await pause(requested.state, 'c-pause-now');
    expect(types(cut.events)).toEqual(['run.paused']);
    expect(record(cut.state).pauseRequested).toBeUndefined();
    expect(types((await fire(cut.state)).events)).toEqual(['log.appended']);
  });

  it('drain-current-node pauses at once when no node executes (suspended on an interrupt), and a node that fails ends the wait', async () => {
    const { state } = await start(fixture('conformance-approval'));
    const paused = await drain(state);
    expect(types(paused.events)).toEqual(['run.paused']);
    expect(payloadOf(paused.events, 'run.paused')).toMatchObject({ drainPolicy: 'drain-current-node' });
    const failing = await start(DELAY, { inputs: { delayMs: 1000 } });
    const requested = await drain(failing.state);
    const cancelled = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c-cancel', LATER) },
      requested.state,
    );
    expect(cancelled.state.status).toBe('cancelled');
    expect(types(cancelled.events)).not.toContain('run.paused');
    expect(record(cancelled.state).pauseRequested).toBeUndefined();
  });

  it('cancel of a paused run ends it cancelled', async () => {
    const { state } = await start(DELAY, { inputs: { delayMs: 1000 } });
    const paused = await pause(state);
    const cancelled = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c-cancel', LATER) },
      paused.state,
    );
    expect(cancelled.state.status).toBe('cancelled');
    expect(record(cancelled.state).paused).toBeUndefined();
  });
});

describe('durable timers in forks', () => {
  async function sourceEvents(): Promise<RunEventDoc[]> {
    const started = await decideRun(
      {
        type: 'StartRun',
        runId: 'src',
        workflow: DELAY,
        inputs: { delayMs: 1000 },
        context: context('s0', NOW),
      },
      initialRunState(),
    );
    const paused = await decideRun(
      { type: 'PauseRun', runId: 'src', drainPolicy: 'immediate', context: context('s1', NOW) },
      started.state,
    );
    const resumed = await decideRun(
      { type: 'UnpauseRun', runId: 'src', context: context('s2', NOW) },
      paused.state,
    );
    const fired = await decideRun(
      { type: 'FireTimer', runId: 'src', timerKey: 'src:wait:timer:0:0', context: context('s3', LATER) },
      resumed.state,
    );
    expect(fired.state.status).toBe('completed');
    return [...started.events, ...paused.events, ...resumed.events, ...fired.events];
  }

  const fork = async (events: RunEventDoc[], fromSeq: number, mode: 'replay' | 'branch') => {
    const source = forkSourceOf(events, fromSeq, mode);
    return decideFork(
      {
        type: 'ForkRun',
        runId: 'fork',
        sourceRunId: 'src',
        mode,
        fromSeq,
        workflow: DELAY,
        inputs: { delayMs: 1000 },
        ...source,
        context: context('f0', LATER),
      },
      initialRunState(),
    );
  };

  it('a replay does not wait again for a timer the source saw fire, and matches the source', async () => {
    const forked = await fork(await sourceEvents(), 0, 'replay');
    expect(forked.state.status).toBe('completed');
    expect(types(forked.events)).not.toContain('replay.diverged');
  });

  it('a fork whose history ends inside the delay goes on from the recorded firing (replay) or waits on it (branch)', async () => {
    const events = await sourceEvents();
    const inside = events.findIndex((e) => e.type === 'log.appended') + 1;
    expect((await fork(events, inside, 'replay')).state.status).toBe('completed');
    const branched = await fork(events, inside, 'branch');
    expect(record(branched.state).timer).toMatchObject({ key: 'fork:wait:timer:0:0' });
  });

  it("a fork is not paused by its source's pause", async () => {
    const events = await sourceEvents();
    const afterPause = events.findIndex((e) => e.type === 'run.paused') + 1;
    const branched = await fork(events, afterPause, 'branch');
    expect(record(branched.state).paused).toBeUndefined();
    expect(types(branched.events)).not.toContain('run.paused');
  });

  it('a drain-current-node pause of the source is neither copied nor compared: forks from inside the drain do not pause, a replay does not diverge', async () => {
    const started = await decideRun(
      {
        type: 'StartRun',
        runId: 'src',
        workflow: DELAY,
        inputs: { delayMs: 1000 },
        context: context('s0', NOW),
      },
      initialRunState(),
    );
    const requested = await decideRun(
      { type: 'PauseRun', runId: 'src', drainPolicy: 'drain-current-node', context: context('s1', NOW) },
      started.state,
    );
    const fired = await decideRun(
      { type: 'FireTimer', runId: 'src', timerKey: 'src:wait:timer:0:0', context: context('s2', LATER) },
      requested.state,
    );
    const resumed = await decideRun(
      { type: 'UnpauseRun', runId: 'src', context: context('s3', LATER) },
      fired.state,
    );
    expect(resumed.state.status).toBe('completed');
    const events = [...started.events, ...requested.events, ...fired.events, ...resumed.events];
    const replayed = await fork(events, 0, 'replay');
    expect(replayed.state.status).toBe('completed');
    expect(types(replayed.events)).not.toContain('replay.diverged');
    expect(types(replayed.events)).not.toContain('run.paused');
    const afterRequest =
      events.findIndex(
        (e) =>
          e.type === 'log.appended' &&
          (e.payload as { fields?: { event?: string } }).fields?.event === PAUSE_REQUESTED,
      ) + 1;
    const branched = await fork(events, afterRequest, 'branch');
    expect(record(branched.state).pauseRequested).toBeUndefined();
    expect(
      branched.events.filter(
        (e) => (e.payload as { fields?: { event?: string } }).fields?.event === PAUSE_REQUESTED,
      ),
    ).toEqual([]);
  });
});
