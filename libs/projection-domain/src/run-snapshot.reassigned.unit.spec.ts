import type { RunEventDoc, RunEventType } from '@openwop/contracts';
import { evolveRunSnapshot, type RunSnapshot } from './run-snapshot.projection';

let seq = 0;
const event = (type: RunEventType, payload: Record<string, unknown>, nodeId?: string): RunEventDoc => ({
  eventId: `e${seq}`,
  runId: 'r1',
  type,
  payload,
  timestamp: '2026-11-21T00:00:00.000Z',
  sequence: seq++,
  ...(nodeId ? { nodeId } : {}),
});

describe('run snapshot: interrupt.reassigned (ADR 0034)', () => {
  it('shows the new approvers on the pending interrupt it names, and ignores another interrupt', () => {
    seq = 0;
    const events = [
      event('run.started', { workflowId: 'wf' }),
      event(
        'interrupt.requested',
        {
          interruptId: 'r1:gate:0',
          nodeId: 'gate',
          kind: 'approval',
          key: 'k',
          data: { title: 't', approversList: ['alice'] },
          requestedAt: 'x',
        },
        'gate',
      ),
      event('node.suspended', { nodeId: 'gate', kind: 'approval', interruptId: 'r1:gate:0' }, 'gate'),
    ];
    const waiting = events.reduce<RunSnapshot | null>(evolveRunSnapshot, null)!;
    const other = evolveRunSnapshot(
      waiting,
      event('interrupt.reassigned', {
        interruptId: 'r1:gate:9',
        nodeId: 'gate',
        step: 1,
        ageMs: 1,
        approvers: ['x'],
      }),
    )!;
    expect(other.interrupt?.data).toEqual({ title: 't', approversList: ['alice'] });
    const moved = evolveRunSnapshot(
      other,
      event('interrupt.reassigned', {
        interruptId: 'r1:gate:0',
        nodeId: 'gate',
        step: 1,
        ageMs: 1,
        approvers: ['lead'],
      }),
    )!;
    expect(moved).toMatchObject({
      status: 'waiting-approval',
      interrupt: { interruptId: 'r1:gate:0', data: { title: 't', approversList: ['lead'] } },
    });
  });
});
