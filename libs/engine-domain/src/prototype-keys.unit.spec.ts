import { record, start, workflow } from './test-kit.spec';

// Node ids are data: a node called like a member of Object.prototype runs like any other. The run
// state keeps per-node maps (visits, signals, outputs) as plain JSON objects, so a bare lookup of an
// id it does not hold yet answered the inherited member (visit "function Object() … 1").
const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

describe('run decider: node ids named like Object.prototype members', () => {
  it.each(NAMES)('runs a → %s → b to completion, visiting each once', async (id) => {
    const { events, state } = await start(
      workflow(
        [{ id: 'a' }, { id }, { id: 'b' }],
        [
          ['a', id],
          [id, 'b'],
        ],
      ),
    );
    expect(events.map((e) => [e.type, e.nodeId])).toEqual([
      ['run.started', undefined],
      ['node.started', 'a'],
      ['node.completed', 'a'],
      ['node.started', id],
      ['node.completed', id],
      ['node.started', 'b'],
      ['node.completed', 'b'],
      ['run.completed', undefined],
    ]);
    const run = record(state);
    expect(run.status).toBe('completed');
    expect(Object.hasOwn(run.visits, id)).toBe(true);
    expect(run.visits[id]).toBe(1);
    expect(Object.getPrototypeOf(run.visits)).toBe(Object.prototype);
  });
});
