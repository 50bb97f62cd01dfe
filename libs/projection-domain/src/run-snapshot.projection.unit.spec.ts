import type { RunEventDoc } from '@openwop/contracts';
import { isTerminalRunStatus } from '@openwop/contracts';
import { evolveRunSnapshot, type RunSnapshot } from './run-snapshot.projection';

const ev = (
  sequence: number,
  type: RunEventDoc['type'],
  payload: unknown = {},
  nodeId?: string,
): RunEventDoc => ({
  eventId: `r:${sequence}`,
  runId: 'r',
  type,
  payload,
  sequence,
  timestamp: `2026-11-21T00:00:0${sequence}.000Z`,
  ...(nodeId ? { nodeId } : {}),
});

describe('run snapshot projection', () => {
  it('folds a no-op run to completed, tracking the current node and last sequence', () => {
    const events = [
      ev(0, 'run.started', { workflowId: 'wf', owner: { tenant: 't1' } }),
      ev(1, 'node.started', { nodeId: 'n', typeId: 'core.noop' }, 'n'),
      ev(2, 'node.completed', { nodeId: 'n' }, 'n'),
    ];
    const running = events.reduce<RunSnapshot | null>(evolveRunSnapshot, null);
    expect(running).toMatchObject({
      status: 'running',
      currentNodeId: 'n',
      lastSequence: 2,
      owner: { tenant: 't1' },
    });
    const done = evolveRunSnapshot(running, ev(3, 'run.completed', { outputs: { x: 1 } }));
    expect(done).toMatchObject({
      status: 'completed',
      outputs: { x: 1 },
      lastSequence: 3,
      completedAt: '2026-11-21T00:00:03.000Z',
    });
    expect(done).not.toHaveProperty('currentNodeId');
    expect(isTerminalRunStatus(done!.status)).toBe(true);
  });

  it('carries the era key eventLogSchemaVersion from run.started on: 2 for a v1 run, the value a run.started names when it names one', () => {
    const v1 = [
      ev(0, 'run.started', { workflowId: 'wf' }),
      ev(1, 'run.completed', { outputs: {} }),
    ].reduce<RunSnapshot | null>(evolveRunSnapshot, null);
    expect(v1?.eventLogSchemaVersion).toBe(2);
    expect(
      evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf', eventLogSchemaVersion: 3 }))
        ?.eventLogSchemaVersion,
    ).toBe(3);
    for (const odd of [1, 2.5, '3', null])
      expect(
        evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf', eventLogSchemaVersion: odd }))
          ?.eventLogSchemaVersion,
      ).toBe(2);
  });

  it('shows variables: the caller inputs, overlaid with the run outputs once it completed', () => {
    const started = evolveRunSnapshot(
      null,
      ev(0, 'run.started', { workflowId: 'wf', inputs: { payload: { a: [1] }, keep: 1 } }),
    );
    expect(started?.variables).toEqual({ payload: { a: [1] }, keep: 1 });
    const done = evolveRunSnapshot(started, ev(1, 'run.completed', { outputs: { payload: { a: [2] } } }));
    expect(done?.variables).toEqual({ payload: { a: [2] }, keep: 1 });
    expect(evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf' }))?.variables).toEqual({});
  });

  it("shows a failed run's error as {code, message, details?}: the schema's closed shape, without retryable", () => {
    const started = evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf' }));
    const failed = evolveRunSnapshot(
      started,
      ev(1, 'run.failed', { error: { code: 'x', message: 'm', retryable: false } }),
    );
    expect(failed?.error).toEqual({ code: 'x', message: 'm' });
    const detailed = evolveRunSnapshot(
      started,
      ev(1, 'run.failed', { error: { code: 'x', message: 'm', retryable: true, details: { k: 1 } } }),
    );
    expect(detailed?.error).toEqual({ code: 'x', message: 'm', details: { k: 1 } });
  });

  it('ignores events before run.started and keeps unknown types as sequence bumps', () => {
    expect(evolveRunSnapshot(null, ev(0, 'node.started'))).toBeNull();
    const s = evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf' }));
    expect(evolveRunSnapshot(s, ev(1, 'log.appended'))).toMatchObject({ status: 'running', lastSequence: 1 });
  });
});

describe('run snapshot projection of interrupts', () => {
  const started = evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf' }));
  const requested = ev(
    1,
    'interrupt.requested',
    {
      runId: 'r',
      nodeId: 'gate',
      interruptId: 'r:gate:0',
      kind: 'clarification',
      key: 'r:gate:0',
      data: { questions: [] },
      requestedAt: 't',
    },
    'gate',
  );

  it.each([
    ['approval', 'waiting-approval'],
    ['clarification', 'waiting-input'],
    ['external-event', 'waiting-external'],
    ['low-confidence', 'waiting-approval'],
    ['conversation.exchange', 'waiting-approval'],
  ])('a node suspended on %s makes the run %s with the pending interrupt', (kind, status) => {
    const withInterrupt = evolveRunSnapshot(started, {
      ...requested,
      payload: { ...(requested.payload as object), kind },
    });
    const suspended = evolveRunSnapshot(
      withInterrupt,
      ev(2, 'node.suspended', { nodeId: 'gate', kind, reason: kind }, 'gate'),
    );
    expect(suspended).toMatchObject({
      status,
      currentNodeId: 'gate',
      interrupt: { interruptId: 'r:gate:0', kind },
    });
  });

  it('drops the interrupt when it is resolved and runs again when the node resumes', () => {
    const s1 = evolveRunSnapshot(
      evolveRunSnapshot(started, requested),
      ev(2, 'node.suspended', { kind: 'clarification' }, 'gate'),
    );
    const s2 = evolveRunSnapshot(s1, ev(3, 'interrupt.resolved', { interruptId: 'r:gate:0' }, 'gate'));
    expect(s2).not.toHaveProperty('interrupt');
    expect(evolveRunSnapshot(s2, ev(4, 'node.resumed', {}, 'gate'))).toMatchObject({ status: 'running' });
  });

  it('a cancelled run keeps no pending interrupt', () => {
    const s1 = evolveRunSnapshot(started, requested);
    expect(evolveRunSnapshot(s1, ev(2, 'run.cancelled', {}))).toMatchObject({ status: 'cancelled' });
    expect(evolveRunSnapshot(s1, ev(2, 'run.cancelled', {}))).not.toHaveProperty('interrupt');
  });
});

describe('run snapshot projection of pause and resume', () => {
  const started = evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf' }));
  const requested = ev(
    1,
    'interrupt.requested',
    {
      runId: 'r',
      nodeId: 'gate',
      interruptId: 'r:gate:0',
      kind: 'approval',
      key: 'r:gate:0',
      data: {},
      requestedAt: 't',
    },
    'gate',
  );

  it('a paused run is paused until resumed, then running again', () => {
    const paused = evolveRunSnapshot(started, ev(1, 'run.paused', { drainPolicy: 'immediate' }));
    expect(paused).toMatchObject({ status: 'paused', lastSequence: 1 });
    expect(evolveRunSnapshot(paused, ev(2, 'run.resumed', {}))).toMatchObject({ status: 'running' });
  });

  it('an interrupt answered while paused leaves the run paused; resume makes it running', () => {
    const waiting = evolveRunSnapshot(
      evolveRunSnapshot(started, requested),
      ev(2, 'node.suspended', { kind: 'approval' }, 'gate'),
    );
    const paused = evolveRunSnapshot(waiting, ev(3, 'run.paused', {}));
    const answered = [ev(4, 'interrupt.resolved', {}, 'gate'), ev(5, 'node.resumed', {}, 'gate')].reduce(
      evolveRunSnapshot,
      paused,
    );
    expect(answered).toMatchObject({ status: 'paused' });
    expect(answered).not.toHaveProperty('interrupt');
    expect(evolveRunSnapshot(answered, ev(6, 'run.resumed', {}))).toMatchObject({ status: 'running' });
  });

  it('resumed while the interrupt is still pending, the run waits on it again', () => {
    const waiting = evolveRunSnapshot(
      evolveRunSnapshot(started, requested),
      ev(2, 'node.suspended', { kind: 'approval' }, 'gate'),
    );
    const paused = evolveRunSnapshot(waiting, ev(3, 'run.paused', {}));
    expect(evolveRunSnapshot(paused, ev(4, 'run.resumed', {}))).toMatchObject({ status: 'waiting-approval' });
  });
});
