import type { RunEventDoc } from '@openwop/contracts';
import { evolveRunSnapshot, type RunSnapshot } from './run-snapshot.projection';

const ev = (sequence: number, type: string, payload: unknown, nodeId?: string): RunEventDoc =>
  ({
    eventId: `r:${sequence}`,
    runId: 'r',
    type,
    payload,
    sequence,
    timestamp: '2026-11-21T00:00:00.000Z',
    ...(nodeId ? { nodeId } : {}),
  }) as RunEventDoc;
const fold = (events: RunEventDoc[]): RunSnapshot | null =>
  events.reduce<RunSnapshot | null>(evolveRunSnapshot, null);

describe('run snapshot: parent and child runs', () => {
  it("lists a node's child run, shows the child's wait, and its end", () => {
    const started = ev(0, 'run.started', { workflowId: 'parent' });
    const dispatched = ev(
      2,
      'node.dispatched',
      { childRunId: 'c1', childWorkflowId: 'child', childStatus: 'running' },
      'invoke',
    );
    const waiting = fold([
      started,
      ev(1, 'node.started', { nodeId: 'invoke' }, 'invoke'),
      dispatched,
      ev(
        3,
        'node.suspended',
        { nodeId: 'invoke', interruptId: 'c1:gate:0', kind: 'approval', childRunId: 'c1' },
        'invoke',
      ),
    ]);
    expect(waiting).toMatchObject({
      status: 'waiting-approval',
      currentNodeId: 'invoke',
      childRuns: [{ runId: 'c1', workflowId: 'child', nodeId: 'invoke', status: 'running' }],
    });
    expect(waiting?.interrupt).toBeUndefined();
    const ended = [
      ev(4, 'node.resumed', { nodeId: 'invoke', childRunId: 'c1' }, 'invoke'),
      ev(
        5,
        'log.appended',
        {
          level: 'warn',
          message: 'x',
          fields: { event: 'child.ended', childRunId: 'c1', status: 'cancelled' },
        },
        'invoke',
      ),
    ].reduce(evolveRunSnapshot, waiting);
    expect(ended).toMatchObject({ status: 'running', childRuns: [{ runId: 'c1', status: 'cancelled' }] });
    // Other log lines leave the list alone.
    expect(
      evolveRunSnapshot(ended, ev(6, 'log.appended', { level: 'info', message: 'y' }))?.childRuns,
    ).toEqual(ended?.childRuns);
  });

  it('a child run names its parent', () => {
    expect(
      fold([ev(0, 'run.started', { workflowId: 'child', parentRunId: 'p', parentNodeId: 'invoke' })]),
    ).toMatchObject({
      parentRunId: 'p',
      parentNodeId: 'invoke',
    });
    expect(fold([ev(0, 'run.started', { workflowId: 'w' })])).not.toHaveProperty('parentRunId');
  });
});
