import { fixture, payloadOf, resume, start, types } from './test-kit.spec';

describe('clarification gate (conformance-clarification)', () => {
  it('suspends with clarification.requested and completes with the answers on resolve', async () => {
    const started = await start(fixture('conformance-clarification'));
    expect(types(started.events)).toEqual([
      'run.started',
      'node.started',
      'interrupt.requested',
      'clarification.requested',
      'node.suspended',
    ]);
    expect(payloadOf(started.events, 'clarification.requested')).toEqual({
      nodeId: 'ask',
      interruptId: 'r1:ask:0',
      questions: [{ id: 'q1', question: 'What is your favorite color?' }],
    });
    expect(payloadOf(started.events, 'node.suspended')).toMatchObject({
      reason: 'clarification',
      kind: 'clarification',
    });
    const { events, state } = await resume(started.state, { answers: { q1: 'blue' } });
    expect(types(events)).toEqual([
      'interrupt.resolved',
      'clarification.resolved',
      'node.resumed',
      'node.completed',
      'run.completed',
    ]);
    expect(payloadOf(events, 'clarification.resolved')).toEqual({
      nodeId: 'ask',
      interruptId: 'r1:ask:0',
      answers: { q1: 'blue' },
      answeredBy: 'alice',
    });
    expect(payloadOf(events, 'node.completed').outputs).toEqual({ answers: { q1: 'blue' } });
    expect(state.status).toBe('completed');
  });

  it('accepts the spec array form of answers', async () => {
    const started = await start(fixture('conformance-clarification'));
    const { events } = await resume(started.state, { answers: [{ id: 'q1', answer: 'green' }] });
    expect(payloadOf(events, 'clarification.resolved').answers).toEqual({ q1: 'green' });
  });
});
