import fc from 'fast-check';
import type { WorkflowDefinition } from '@openwop/contracts';
import { DomainError } from '@openwop/kernel';
import { decideRun, evolveRun, executionOrder, initialRunState, RunAlreadyExists, type StartRun } from './run.decider';

const workflow = (nodes: string[], edges: [string, string][] = [], typeId = 'core.noop'): WorkflowDefinition => ({
  id: 'wf',
  name: 'wf',
  version: '1',
  nodes: nodes.map((id) => ({ id, typeId })),
  edges: edges.map(([source, target]) => ({ source, target })),
});

const start = (wf: WorkflowDefinition): StartRun => ({
  type: 'StartRun',
  runId: 'r1',
  workflow: wf,
  inputs: { a: 1 },
  context: { commandId: 'c1', now: '2026-11-21T00:00:00.000Z', tenant: 't1', principal: 'p1' },
});

describe('run decider', () => {
  it('given no run, when StartRun of a no-op workflow, then started → node → completed with sequences from 0', () => {
    const events = decideRun(start(workflow(['n'])), initialRunState());
    expect(events.map((e) => [e.sequence, e.type, e.nodeId])).toEqual([
      [0, 'run.started', undefined],
      [1, 'node.started', 'n'],
      [2, 'node.completed', 'n'],
      [3, 'run.completed', undefined],
    ]);
    expect(events[0]!.payload).toMatchObject({ workflowId: 'wf', inputs: { a: 1 }, owner: { tenant: 't1', principal: 'p1' } });
    expect(events.every((e) => e.timestamp === '2026-11-21T00:00:00.000Z')).toBe(true);
  });

  it('chains causation: the first event to the command, each next one to the previous event', () => {
    const events = decideRun(start(workflow(['a', 'b'], [['a', 'b']])), initialRunState());
    expect(events[0]!.causationId).toBe('c1');
    for (let i = 1; i < events.length; i++) expect(events[i]!.causationId).toBe(events[i - 1]!.eventId);
  });

  it('is deterministic: the same command and state decide the same events', () => {
    const wf = workflow(['a', 'b'], [['a', 'b']]);
    expect(decideRun(start(wf), initialRunState())).toEqual(decideRun(start(wf), initialRunState()));
  });

  it('given a started run, refuses a second StartRun', () => {
    const cmd = start(workflow(['n']));
    const state = decideRun(cmd, initialRunState()).reduce(evolveRun, initialRunState());
    expect(state).toMatchObject({ status: 'completed', lastSequence: 3, tenant: 't1' });
    expect(() => decideRun(cmd, state)).toThrow(RunAlreadyExists);
  });

  it('refuses a node type it cannot run', () => {
    expect(() => decideRun(start(workflow(['n'], [], 'vendor.unknown')), initialRunState())).toThrow(DomainError);
  });

  it('orders nodes after their sources and refuses cycles', () => {
    expect(executionOrder(workflow(['c', 'b', 'a'], [['a', 'b'], ['b', 'c']])).map((n) => n.id)).toEqual(['a', 'b', 'c']);
    expect(() => executionOrder(workflow(['a', 'b'], [['a', 'b'], ['b', 'a']]))).toThrow(/cycle/);
  });

  it('property: any chain of no-op nodes yields gapless sequences, unique ids, and completes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), (n) => {
        const ids = Array.from({ length: n }, (_, i) => `n${i}`);
        const edges = ids.slice(1).map((id, i) => [ids[i]!, id] as [string, string]);
        const events = decideRun(start(workflow(ids, edges)), initialRunState());
        expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
        expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
        expect(events).toHaveLength(2 * n + 2);
        expect(events.reduce(evolveRun, initialRunState()).status).toBe('completed');
      }),
    );
  });
});
