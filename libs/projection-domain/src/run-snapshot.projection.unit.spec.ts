import type { RunEventDoc } from '@openwop/contracts';
import { evolveRunSnapshot, isTerminalStatus, type RunSnapshot } from './run-snapshot.projection';

const ev = (sequence: number, type: RunEventDoc['type'], payload: unknown = {}, nodeId?: string): RunEventDoc => ({
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
    expect(running).toMatchObject({ status: 'running', currentNodeId: 'n', lastSequence: 2, owner: { tenant: 't1' } });
    const done = evolveRunSnapshot(running, ev(3, 'run.completed', { outputs: { x: 1 } }));
    expect(done).toMatchObject({ status: 'completed', outputs: { x: 1 }, lastSequence: 3, completedAt: '2026-11-21T00:00:03.000Z' });
    expect(done).not.toHaveProperty('currentNodeId');
    expect(isTerminalStatus(done!.status)).toBe(true);
  });

  it('ignores events before run.started and keeps unknown types as sequence bumps', () => {
    expect(evolveRunSnapshot(null, ev(0, 'node.started'))).toBeNull();
    const s = evolveRunSnapshot(null, ev(0, 'run.started', { workflowId: 'wf' }));
    expect(evolveRunSnapshot(s, ev(1, 'log.appended'))).toMatchObject({ status: 'running', lastSequence: 1 });
  });
});
