import { setDecisionCheckpoint } from './draft';
import { evolveRun, type RunRecord } from './run.state';
import { context, start, types, workflow } from './test-kit.spec';
import { decideRun } from './run.decider';

/** start → n parallel nodes (edges with `rule`) → end. */
function parallel(n: number, rule?: 'any_failed') {
  const mids = Array.from({ length: n }, (_, i) => ({ id: `n${i}` }));
  return workflow(
    [{ id: 'start' }, ...mids, { id: 'end' }],
    mids.flatMap(({ id }): [string, string, 'any_failed'?][] => [
      ['start', id, rule],
      [id, 'end'],
    ]),
  );
}

const limit = { configurable: { recursionLimit: 1000 } };

afterEach(() => setDecisionCheckpoint(undefined));

describe('a wide run', () => {
  it('runs 998 parallel nodes between a start and an end, each once, end last', async () => {
    const d = await start(parallel(998), { metadata: limit });
    expect(d.state.status).toBe('completed');
    expect(d.events).toHaveLength(2 + 2 * 1000);
    const started = d.events.filter((e) => e.type === 'node.started').map((e) => e.nodeId);
    expect(new Set(started).size).toBe(1000);
    expect(started[0]).toBe('start');
    expect(started.at(-1)).toBe('end');
  });

  it('skips a 4,000-node fan-out and its fan-in when no branch may run', async () => {
    const d = await start(parallel(3998, 'any_failed'));
    expect(d.state.status).toBe('completed');
    expect(types(d.events).filter((t) => t === 'node.skipped')).toHaveLength(3999);
    expect(d.events.at(-2)).toMatchObject({ type: 'node.skipped', nodeId: 'end' });
  });

  it('decides the same events with a checkpoint that yields, and lets other work run meanwhile', async () => {
    const wf = parallel(998);
    const plain = await start(wf, { metadata: limit });
    const order: string[] = [];
    let checkpoints = 0;
    setDecisionCheckpoint(() => {
      checkpoints++;
      if (checkpoints === 10) setImmediate(() => order.push('other work'));
      return checkpoints % 50 === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
    });
    const paced = await start(wf, { metadata: limit }).then((d) => (order.push('decision'), d));
    expect(paced.events).toEqual(plain.events);
    expect(paced.state).toEqual(plain.state);
    expect(checkpoints).toBeGreaterThanOrEqual(1000);
    expect(order).toEqual(['other work', 'decision']);
  });

  it('never changes the state it starts from', async () => {
    const gate = workflow(
      [{ id: 'a' }, { id: 'g', typeId: 'core.approvalGate' }, { id: 'b' }, { id: 'c' }],
      [
        ['a', 'g'],
        ['a', 'b'],
        ['g', 'c'],
      ],
    );
    const first = await start(gate);
    expect(first.state.status).toBe('suspended');
    const before = structuredClone(first.state);
    const pending = (first.state as RunRecord).pending!;
    const resumed = await decideRun(
      {
        type: 'ResumeRun',
        runId: 'r1',
        interruptId: pending.interruptId,
        outcome: 'resolved',
        resumeValue: { action: 'accept' },
        resolvedBy: 'alice',
        resolvedAt: context().now,
        context: context('c2'),
      },
      first.state,
    );
    expect(resumed.state.status).toBe('completed');
    expect(first.state).toEqual(before);
    // Folded one by one outside a writer (copying), the events give the state the writer returned.
    expect(resumed.events.reduce(evolveRun, before)).toEqual(resumed.state);
  });
});
