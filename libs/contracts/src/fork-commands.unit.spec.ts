import { canonicalJson, comparableDifference, comparableRunEvent, rebaseRunId } from './fork-commands';
import type { RunEventDoc, RunEventType } from './run-event';

const ev = (
  sequence: number,
  type: RunEventType,
  payload: unknown,
  nodeId?: string,
  runId = 'r1',
): RunEventDoc => ({
  eventId: `${runId}:${sequence}`,
  runId,
  ...(nodeId ? { nodeId } : {}),
  type,
  payload,
  timestamp: `2026-11-21T00:00:0${sequence}.000Z`,
  sequence,
  schemaVersion: 1,
});

describe('the fork contract', () => {
  it('rebases strings derived from a run id, deeply, and nothing else', () => {
    expect(rebaseRunId({ a: 'r1', b: ['r1:gate:0', 'r10:x', 'x r1'], c: 3, d: null }, 'r1', 'f1')).toEqual({
      a: 'f1',
      b: ['f1:gate:0', 'r10:x', 'x r1'],
      c: 3,
      d: null,
    });
  });

  it('projects an event without its envelope, volatile fields or run id, and skips the wait and cancellation', () => {
    const started = ev(0, 'run.started', {
      workflowId: 'wf',
      forkedFrom: { runId: 'r0' },
      owner: { tenant: 't1' },
      artifactId: 'r1:gate',
    });
    expect(comparableRunEvent(started)).toEqual({
      sequence: 0,
      eventId: 'r1:0',
      type: 'run.started',
      payload: { workflowId: 'wf', owner: { tenant: 't1' }, artifactId: '$run:gate' },
    });
    for (const type of [
      'interrupt.requested',
      'node.suspended',
      'interrupt.resolved',
      'approval.received',
      'node.resumed',
      'run.cancelled',
      'replay.diverged',
    ] as const) {
      expect(comparableRunEvent(ev(1, type, {}, 'gate'))).toBeUndefined();
    }
    expect(
      comparableRunEvent(ev(1, 'log.appended', { message: 'ask', fields: { interruptId: 'r1:gate:0' } })),
    ).toBeUndefined();
    expect(comparableRunEvent(ev(1, 'log.appended', { message: 'node log' }, 'gate'))).toMatchObject({
      type: 'log.appended',
    });
  });

  it('compares payloads whatever their key order, and names the kind of difference', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 1, x: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"x":2,"y":1}]},"b":1}',
    );
    const a = comparableRunEvent(ev(2, 'node.completed', { nodeId: 'n', outputs: { x: 1, y: 2 } }, 'n'))!;
    const b = comparableRunEvent(
      ev(5, 'node.completed', { outputs: { y: 2, x: 1 }, nodeId: 'n' }, 'n', 'f1'),
    )!;
    expect(comparableDifference(a, b)).toBeUndefined();
    expect(comparableDifference(a, { ...b, payload: { nodeId: 'n', outputs: { x: 2 } } })).toBe('output');
    expect(comparableDifference(a, { ...b, nodeId: 'm' })).toBe('output');
    expect(comparableDifference(a, { ...b, type: 'node.failed' })).toBe('type-mismatch');
    expect(comparableDifference(undefined, b)).toBe('extra');
  });
});
