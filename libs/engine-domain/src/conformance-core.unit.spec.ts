import { SEEDED_FIXTURES } from '@openwop/contracts';
import { createNodeRegistry } from './executor';
import { BUILTIN_NODES } from './builtin-nodes';
import { requiresMissingNode } from './builtin-nodes/requires-missing.node';
import { defineNode } from './node';
import { fixture, payloadOf, record, start, types, workflow } from './test-kit.spec';

/** The run-lifecycle fixtures of `conformance/fixtures.md`, decided without I/O. */
describe('core conformance fixtures', () => {
  it.each([
    'conformance-noop',
    'conformance-identity',
    'conformance-delay',
    'conformance-failure',
    'conformance-multi-node',
    'conformance-idempotent',
    'conformance-cancellable',
    'conformance-capability-missing',
    'conformance-approval',
    'conformance-approval-refine',
    'conformance-approval-edit-accept',
    'conformance-clarification',
  ])('%s is seeded (its node types and graph features run here)', (id) => {
    expect(SEEDED_FIXTURES.map((f) => f.id)).toContain(id);
  });

  it('conformance-identity echoes the payload', async () => {
    const payload = { a: [1, { b: null }], s: 'x' };
    const { events, state } = await start(fixture('conformance-identity'), { inputs: { payload } });
    expect(types(events)).toEqual(['run.started', 'node.started', 'node.completed', 'run.completed']);
    expect(payloadOf(events, 'run.completed').outputs).toEqual({ payload });
    expect(record(state).status).toBe('completed');
  });

  it('conformance-failure: node.failed then run.failed, error {code, message} of strings', async () => {
    const { events } = await start(fixture('conformance-failure'));
    expect(types(events)).toEqual(['run.started', 'node.started', 'node.failed', 'run.failed']);
    expect(payloadOf(events, 'run.failed').error).toMatchObject({
      code: 'conformance_test_failure',
      message: 'Intentional conformance failure',
    });
  });

  it('conformance-multi-node completes a, b, c in that order', async () => {
    const { events } = await start(fixture('conformance-multi-node'));
    expect(events.filter((e) => e.type === 'node.completed').map((e) => e.nodeId)).toEqual(['a', 'b', 'c']);
    expect(types(events).at(-1)).toBe('run.completed');
  });

  it('conformance-cancellable waits its variable default (30000 ms) when the caller leaves delayMs out', async () => {
    const defaulted = await start(fixture('conformance-cancellable'), { inputs: { delaySeconds: 30 } });
    expect(record(defaulted.state).timer?.delayMs).toBe(30_000);
    expect(payloadOf(defaulted.events, 'run.started').inputs).toEqual({ delaySeconds: 30 });
    const given = await start(fixture('conformance-cancellable'), { inputs: { delayMs: 1_500 } });
    expect(record(given.state).timer?.delayMs).toBe(1_500);
  });

  it('a variable default never lands on the prototype', async () => {
    const wf = {
      ...workflow([{ id: 'n', typeId: 'core.identity' }]),
      variables: [{ name: '__proto__', defaultValue: { polluted: true } }],
    };
    const { events } = await start(wf, { inputs: {} });
    const outputs = payloadOf(events, 'node.completed').outputs as Record<string, unknown>;
    expect(Object.getPrototypeOf(outputs)).toBe(Object.prototype);
    expect((outputs as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('conformance.requiresMissing: dispatch refusal on an unprovided capability', () => {
  it('fails the node and the run with capability_not_provided naming the capability', async () => {
    const { events, state } = await start(fixture('conformance-capability-missing'));
    expect(types(events)).toEqual(['run.started', 'node.started', 'node.failed', 'run.failed']);
    const error = payloadOf(events, 'run.failed').error as Record<string, unknown>;
    expect(error.code).toBe('capability_not_provided');
    expect(error.message).toContain('conformance.never-provided');
    expect(error.details).toMatchObject({ capability: 'conformance.never-provided', nodeId: 'n1' });
    expect(record(state).status).toBe('failed');
  });

  it('never calls execute of a node whose requirement is missing', async () => {
    const execute = jest.fn(async () => ({}));
    const spy = defineNode({
      typeId: 'conformance.requiresMissing',
      requires: requiresMissingNode.requires!,
      execute,
    });
    const nodes = createNodeRegistry([...BUILTIN_NODES.filter((n) => n.typeId !== spy.typeId), spy]);
    await start(fixture('conformance-capability-missing'), { nodes });
    expect(execute).not.toHaveBeenCalled();
  });

  it('executes a node whose requirements are all provided (none declared)', async () => {
    const execute = jest.fn(async () => ({ ok: true }));
    const nodes = createNodeRegistry([
      ...BUILTIN_NODES,
      defineNode({ typeId: 'test.free', requires: [], execute }),
    ]);
    const { events } = await start(workflow([{ id: 'n', typeId: 'test.free' }]), { nodes });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(types(events).at(-1)).toBe('run.completed');
  });
});
