import { lowConfidenceSuspension } from './low-confidence';
import { fixture, payloadOf, resume, start, types, workflow } from './test-kit.spec';

const agent = (mockConfidence: unknown) =>
  workflow([
    {
      id: 'decider',
      typeId: 'core.identity',
      config: mockConfidence === undefined ? {} : { mockConfidence },
      agent: { agentId: 'core.conformance.decider' },
    },
  ]);

describe('core.identity as a mock agent: low-confidence escalation', () => {
  it('given conformance-agent-low-confidence (0.5 < 0.7), then agent.decided is followed by node.suspended { reason: low-confidence }', async () => {
    const { events, state, openInterrupt } = await start(fixture('conformance-agent-low-confidence'), {
      inputs: { payload: 1 },
    });
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'agent.decided',
      'interrupt.requested',
      'node.suspended',
    ]);
    expect(payloadOf(events, 'agent.decided')).toMatchObject({
      agentId: 'core.conformance.low-conf-decider',
      confidence: 0.5,
    });
    // CP-1: the suspension itself says who escalated and why (agentConfidenceEscalation reads these).
    expect(payloadOf(events, 'node.suspended')).toEqual({
      nodeId: 'low-conf-decider',
      interruptId: expect.any(String),
      key: expect.any(String),
      reason: 'low-confidence',
      kind: 'low-confidence',
      agentId: 'core.conformance.low-conf-decider',
      threshold: 0.7,
      observed: 0.5,
      agent: { agentId: 'core.conformance.low-conf-decider', modelClass: 'reasoning' },
    });
    expect(openInterrupt).toMatchObject({
      kind: 'low-confidence',
      data: { agentId: 'core.conformance.low-conf-decider', threshold: 0.7, observed: 0.5 },
    });
    expect(state.status).toBe('suspended');
  });

  it('when the operator ratifies, then the node completes with its inputs and the decision, without a second agent.decided', async () => {
    const s0 = await start(fixture('conformance-agent-low-confidence'), { inputs: { payload: 1 } });
    const { events, state } = await resume(s0.state, { route: 'b' });
    expect(types(events)).toEqual(['interrupt.resolved', 'node.resumed', 'node.completed', 'run.completed']);
    expect(payloadOf(events, 'node.completed').outputs).toEqual({ payload: 1, decision: { route: 'b' } });
    expect(state.status).toBe('completed');
  });

  it.each([
    ['equal to the threshold', 0.7],
    ['above the threshold', 0.9],
  ])('a confidence %s continues', async (_what, c) => {
    const { events, state } = await start(agent(c), { inputs: { payload: 'p' } });
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'agent.decided',
      'node.completed',
      'run.completed',
    ]);
    expect(payloadOf(events, 'node.completed').outputs).toEqual({ payload: 'p' });
    expect(state.status).toBe('completed');
  });

  it('an absent confidence is no signal: plain identity, no agent.decided, no escalation', async () => {
    const { events } = await start(agent(undefined), { inputs: { payload: 'p' } });
    expect(types(events)).toEqual(['run.started', 'node.started', 'node.completed', 'run.completed']);
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '0.1'],
    ['out of range', -0.2],
  ])('a non-finite or malformed confidence (%s) does not escalate and is logged', async (_what, c) => {
    const { events, state } = await start(agent(c));
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'agent.decided',
      'log.appended',
      'node.completed',
      'run.completed',
    ]);
    expect(payloadOf(events, 'agent.decided')).not.toHaveProperty('confidence');
    expect(payloadOf(events, 'log.appended')).toMatchObject({ level: 'warn' });
    expect(state.status).toBe('completed');
  });

  it('takes the threshold from metadata.configurable.escalationThreshold', async () => {
    expect(
      (await start(agent(0.5), { metadata: { configurable: { escalationThreshold: 0.4 } } })).state.status,
    ).toBe('completed');
    const escalated = await start(agent(0.5), { metadata: { configurable: { escalationThreshold: 0.6 } } });
    expect(escalated.openInterrupt).toMatchObject({ data: { threshold: 0.6, observed: 0.5 } });
    expect(payloadOf(escalated.events, 'node.suspended')).toMatchObject({ threshold: 0.6, observed: 0.5 });
  });
});

describe('lowConfidenceSuspension', () => {
  const wf = workflow([
    { id: 'd', typeId: 'core.identity', agent: { agentId: 'core.a', modelClass: 'reasoning' } },
    { id: 'plain', typeId: 'core.identity' },
  ]);
  const data = { agentId: 'core.a', threshold: 0.7, observed: 0.2 };

  it('carries agentId, threshold, observed and the node AgentRef', () => {
    expect(lowConfidenceSuspension('low-confidence', data, wf, 'd')).toEqual({
      ...data,
      agent: { agentId: 'core.a', modelClass: 'reasoning' },
    });
  });

  it('names no AgentRef when the node has none, or another agent escalated', () => {
    expect(lowConfidenceSuspension('low-confidence', data, wf, 'plain')).toEqual(data);
    expect(lowConfidenceSuspension('low-confidence', { ...data, agentId: 'core.b' }, wf, 'd')).toEqual({
      ...data,
      agentId: 'core.b',
    });
  });

  it('adds nothing for other kinds or an incomplete payload', () => {
    expect(lowConfidenceSuspension('approval', data, wf, 'd')).toEqual({});
    expect(lowConfidenceSuspension('low-confidence', { agentId: 'core.a', threshold: 0.7 }, wf, 'd')).toEqual(
      {},
    );
    expect(lowConfidenceSuspension('low-confidence', null, wf, 'd')).toEqual({});
  });
});
