import {
  conversationTurnProblems,
  jsonDepthExceeds,
  MAX_INTERRUPT_TIMEOUT_MS,
  MAX_JSON_DEPTH,
  MAX_NODE_EXECUTIONS,
  MAX_TURN_CONTENT_BYTES,
  MAX_TURN_TS_MS,
  MAX_WORKFLOW_EDGES,
  MAX_WORKFLOW_NODES,
  runConfigurableProblems,
  valueDepthExceeds,
  workflowLimitProblems,
} from './limits';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('jsonDepthExceeds (raw text, no recursion)', () => {
  it('counts objects and arrays alike, up to the bound inclusive', () => {
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(`{"a":"${'['.repeat(500)}"}`, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a":"x\\"[[[[","b":1}`, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a":"\\\\","b":[[1]]}`, 2)).toBe(true);
  });

  it('reads UTF-8 bytes as exactly as strings, and survives a 100,000-deep body', () => {
    const text = `{"é🙂":[${nested(3)}]}`;
    expect(jsonDepthExceeds(Buffer.from(text), 4)).toBe(jsonDepthExceeds(text, 4));
    expect(jsonDepthExceeds(Buffer.from(text), 5)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from(nested(100_000)))).toBe(true);
  });
});

describe('valueDepthExceeds (parsed values, explicit stack)', () => {
  it('measures like the text scanner', () => {
    const deep = JSON.parse(nested(MAX_JSON_DEPTH + 1)) as unknown;
    expect(valueDepthExceeds(deep)).toBe(true);
    expect(valueDepthExceeds(JSON.parse(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(valueDepthExceeds({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(valueDepthExceeds({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(valueDepthExceeds('scalar', 0)).toBe(false);
  });

  it('treats a cycle as too deep instead of looping', () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(valueDepthExceeds(cycle)).toBe(true);
  });
});

describe('workflowLimitProblems', () => {
  const node = (id: string, config: Record<string, unknown> = {}) => ({ id, typeId: 'core.noop', config });

  it('refuses too many nodes or edges by count, before looking at any of them', () => {
    const nodes = Array.from({ length: MAX_WORKFLOW_NODES + 1 }, (_, i) => node(`n${i}`));
    expect(workflowLimitProblems({ id: 'w', nodes, edges: [] })).toEqual([
      {
        path: '/nodes',
        message: `must have at most ${MAX_WORKFLOW_NODES} nodes (has ${MAX_WORKFLOW_NODES + 1})`,
      },
    ]);
    const edges = Array.from({ length: MAX_WORKFLOW_EDGES + 1 }, () => ({
      sourceNodeId: 'a',
      targetNodeId: 'a',
    }));
    expect(workflowLimitProblems({ id: 'w', nodes: [node('a')], edges }).map((p) => p.path)).toEqual([
      '/edges',
    ]);
  });

  it('range-checks gate timeouts, approvals and id lengths against their columns', () => {
    const problems = workflowLimitProblems({
      id: 'w'.repeat(201),
      nodes: [
        node('a', { timeoutMs: 1e15 }),
        node('b', { timeoutMs: 0, timeout_ms: 1.5, maxSilenceMs: '10' }),
        node('c', { timeoutSec: MAX_INTERRUPT_TIMEOUT_MS, requiredApprovals: 0 }),
        node('x'.repeat(201)),
      ],
      edges: [{ sourceNodeId: 'a', targetNodeId: 'y'.repeat(201) }],
    });
    expect(problems.map((p) => p.path)).toEqual([
      '/id',
      '/nodes/0/config/timeoutMs',
      '/nodes/1/config/timeoutMs',
      '/nodes/1/config/timeout_ms',
      '/nodes/1/config/maxSilenceMs',
      '/nodes/2/config/timeoutSec',
      '/nodes/2/config/requiredApprovals',
      '/nodes/3/id',
      '/edges/0/targetNodeId',
    ]);
    expect(problems[1]!.message).toBe(`must be an integer from 1 to ${MAX_INTERRUPT_TIMEOUT_MS}`);
  });

  it('accepts a workflow within bounds, and leaves other shapes to the schema', () => {
    expect(
      workflowLimitProblems({
        id: 'w',
        nodes: [node('a', { timeoutMs: MAX_INTERRUPT_TIMEOUT_MS })],
        edges: [],
      }),
    ).toEqual([]);
    expect(workflowLimitProblems([1, 2])).toEqual([]);
    expect(workflowLimitProblems({ nodes: 'x' })).toEqual([]);
  });

  it('reads config keys as own data: a config named constructor or toString is no prototype member', () => {
    const config = JSON.parse(
      '{"constructor":{"timeoutMs":1},"toString":5,"__proto__":{"timeoutMs":1e15}}',
    ) as Record<string, unknown>;
    expect(workflowLimitProblems({ id: 'w', nodes: [node('a', config)], edges: [] })).toEqual([]);
    expect(({} as Record<string, unknown>).timeoutMs).toBeUndefined();
  });
});

describe('runConfigurableProblems', () => {
  it('caps recursionLimit (both spellings) at maxNodeExecutions and checks escalationThreshold', () => {
    expect(
      runConfigurableProblems({ recursionLimit: 8000, run: { recursionLimit: 0 }, escalationThreshold: 2 }),
    ).toEqual([
      { path: '/recursionLimit', message: `must be an integer from 1 to ${MAX_NODE_EXECUTIONS}` },
      { path: '/run/recursionLimit', message: `must be an integer from 1 to ${MAX_NODE_EXECUTIONS}` },
      { path: '/escalationThreshold', message: 'must be a number from 0 to 1' },
    ]);
    expect(
      runConfigurableProblems({ recursionLimit: MAX_NODE_EXECUTIONS, escalationThreshold: 0.5, model: 'x' }),
    ).toEqual([]);
    expect(runConfigurableProblems(undefined)).toEqual([]);
  });
});

describe('conversationTurnProblems', () => {
  const exchange = (turn: Record<string, unknown>) => ({
    operation: 'exchange',
    turn: { messageId: 'm', ...turn },
  });

  it('refuses a ts that is not an integer epoch-ms a bigint and a date can hold', () => {
    for (const ts of [1e300, -1, 1.5, '1', MAX_TURN_TS_MS + 1]) {
      expect(conversationTurnProblems(exchange({ ts })).map((p) => p.path)).toEqual(['/turn/ts']);
    }
    expect(conversationTurnProblems(exchange({ ts: 0 }))).toEqual([]);
    expect(conversationTurnProblems(exchange({ ts: MAX_TURN_TS_MS }))).toEqual([]);
  });

  it('bounds content bytes and id lengths', () => {
    expect(
      conversationTurnProblems(exchange({ content: 'é'.repeat(MAX_TURN_CONTENT_BYTES / 2 - 1) })),
    ).toEqual([]); // + 2 quote bytes
    expect(
      conversationTurnProblems(exchange({ content: 'é'.repeat(MAX_TURN_CONTENT_BYTES / 2) })).map(
        (p) => p.path,
      ),
    ).toEqual(['/turn/content']);
    expect(conversationTurnProblems(exchange({ from: 'f'.repeat(257) })).map((p) => p.path)).toEqual([
      '/turn/from',
    ]);
  });

  it('ignores resume values that carry no turn', () => {
    expect(conversationTurnProblems({ action: 'accept', ts: 1e300 })).toEqual([]);
    expect(conversationTurnProblems([{ turn: { ts: 1e300 } }])).toEqual([]);
    expect(conversationTurnProblems(JSON.parse('{"constructor":{"ts":1e300}}'))).toEqual([]);
  });
});
