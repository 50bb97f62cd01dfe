import { createNodeRegistry } from './executor';
import { BUILTIN_NODES } from './builtin-nodes';
import { defineNode, InterruptTimeoutError, NodeError, type NodeModule } from './node';
import { payloadOf, record, resume, start, types, workflow } from './test-kit.spec';

/** A registry with the built-ins plus `test.node` running `execute`, and a log of what each execution saw. */
function withNode(execute: NodeModule['execute']) {
  return createNodeRegistry([...BUILTIN_NODES, defineNode({ typeId: 'test.node', execute })]);
}
const single = workflow([{ id: 'n', typeId: 'test.node' }]);
const custom = (customKind: string, extra: Record<string, unknown> = {}) => ({
  kind: 'custom' as const,
  data: { customKind },
  ...extra,
});

describe('ctx.interrupt: replay by key', () => {
  it('given a resolved interrupt, when the node re-executes, then the call returns the stored value and no second interrupt.requested is emitted', async () => {
    const seen: unknown[] = [];
    const nodes = withNode(async (ctx) => {
      seen.push(await ctx.interrupt(custom('q')));
      return { got: seen[seen.length - 1] };
    });
    const started = await start(single, { nodes });
    const { events, state } = await resume(started.state, { v: 42 }, { nodes });
    expect(types(events)).toEqual(['interrupt.resolved', 'node.resumed', 'node.completed', 'run.completed']);
    expect(events.some((e) => e.type === 'interrupt.requested')).toBe(false);
    expect(seen).toEqual([{ v: 42 }]);
    expect(payloadOf(events, 'node.completed').outputs).toEqual({ got: { v: 42 } });
    expect(record(state).resolutions).toEqual({ 'r1:n:0': { value: { v: 42 } } });
  });

  it('a node calling interrupt twice gets two derived keys, and the first answer replays while the second is asked', async () => {
    const nodes = withNode(async (ctx) => {
      const a = await ctx.interrupt(custom('first'));
      const b = await ctx.interrupt(custom('second'));
      return { a, b };
    });
    const s0 = await start(single, { nodes });
    expect(s0.openInterrupt).toMatchObject({ interruptId: 'r1:n:0', key: 'r1:n:0' });
    const s1 = await resume(s0.state, 'A', { nodes });
    expect(types(s1.events)).toEqual([
      'interrupt.resolved',
      'node.resumed',
      'interrupt.requested',
      'node.suspended',
    ]);
    expect(s1.openInterrupt).toMatchObject({
      interruptId: 'r1:n:1',
      key: 'r1:n:1',
      data: { customKind: 'second' },
    });
    const s2 = await resume(s1.state, 'B', { nodes, commandId: 'c3' });
    expect(payloadOf(s2.events, 'node.completed').outputs).toEqual({ a: 'A', b: 'B' });
    expect(s2.events.filter((e) => e.type === 'interrupt.requested')).toHaveLength(0);
  });

  it('honours custom keys, and a second call with the same key returns the first answer', async () => {
    const nodes = withNode(async (ctx) => {
      const a = await ctx.interrupt(custom('q', { key: 'my-key' }));
      const again = await ctx.interrupt(custom('q', { key: 'my-key' }));
      return { a, again };
    });
    const s0 = await start(single, { nodes });
    expect(s0.openInterrupt).toMatchObject({ key: 'my-key', interruptId: 'r1:n:0' });
    const { events } = await resume(s0.state, 'once', { nodes });
    expect(payloadOf(events, 'node.completed').outputs).toEqual({ a: 'once', again: 'once' });
  });

  it('suspend accepts the aliases reason → kind, resumeKey → key, answerSchema → resumeSchema', async () => {
    const answerSchema = { type: 'object', required: ['ok'] };
    const nodes = withNode(async (ctx) => ({
      r: await ctx.suspend({
        reason: 'custom',
        resumeKey: 'alias-key',
        answerSchema,
        timeoutMs: 5000,
        data: { customKind: 'legacy' },
      }),
    }));
    const s0 = await start(single, { nodes });
    expect(payloadOf(s0.events, 'interrupt.requested')).toMatchObject({
      kind: 'custom',
      key: 'alias-key',
      resumeSchema: answerSchema,
      timeoutMs: 5000,
      data: { customKind: 'legacy' },
    });
    expect(s0.openInterrupt).toMatchObject({ kind: 'custom', key: 'alias-key', resumeSchema: answerSchema });
    expect(
      payloadOf((await resume(s0.state, { ok: true }, { nodes })).events, 'node.completed').outputs,
    ).toEqual({ r: { ok: true } });
  });

  it('a timeout makes the call throw InterruptTimeoutError; uncaught, the node fails interrupt_timeout', async () => {
    const caught: unknown[] = [];
    const nodes = withNode(async (ctx) => {
      try {
        return { v: await ctx.interrupt(custom('q')) };
      } catch (e) {
        caught.push(e);
        throw e;
      }
    });
    const s0 = await start(single, { nodes });
    const { events } = await resume(s0.state, undefined, { outcome: 'timeout', nodes });
    expect(caught.at(-1)).toBeInstanceOf(InterruptTimeoutError);
    expect(payloadOf(events, 'interrupt.resolved')).toMatchObject({ outcome: 'timeout', resumeValue: null });
    expect(payloadOf(events, 'interrupt.resolved')).not.toHaveProperty('action');
    expect(payloadOf(events, 'node.failed').error).toMatchObject({ code: 'interrupt_timeout' });
  });

  it('a node that swallows the pause is suspended anyway', async () => {
    const nodes = withNode(async (ctx) => {
      try {
        await ctx.interrupt(custom('q'));
      } catch {
        /* swallowed */
      }
      return { done: true };
    });
    const { events, state } = await start(single, { nodes });
    expect(types(events)).toEqual(['run.started', 'node.started', 'interrupt.requested', 'node.suspended']);
    expect(state.status).toBe('suspended');
  });

  it('node events emitted before the interrupt are written once, not again on re-execution', async () => {
    const nodes = withNode(async (ctx) => {
      ctx.emit('log.appended', { level: 'info', message: 'before' });
      const v = await ctx.interrupt(custom('q'));
      ctx.emit('log.appended', { level: 'info', message: 'after' });
      return { v };
    });
    const s0 = await start(single, { nodes });
    expect(types(s0.events)).toEqual([
      'run.started',
      'node.started',
      'log.appended',
      'interrupt.requested',
      'node.suspended',
    ]);
    const s1 = await resume(s0.state, 1, { nodes });
    expect(types(s1.events)).toEqual([
      'interrupt.resolved',
      'node.resumed',
      'log.appended',
      'node.completed',
      'run.completed',
    ]);
    expect(payloadOf(s1.events, 'log.appended').message).toBe('after');
  });

  it('a re-execution that no longer asks for the resolved key is recorded as replay.diverged', async () => {
    let calls = 0;
    const nodes = withNode(async (ctx) => ({ v: await ctx.interrupt(custom('q', { key: `k${calls++}` })) }));
    const s0 = await start(single, { nodes });
    const { events } = await resume(s0.state, 'x', { nodes });
    expect(types(events)).toEqual([
      'interrupt.resolved',
      'node.resumed',
      'replay.diverged',
      'interrupt.requested',
      'node.suspended',
    ]);
    expect(payloadOf(events, 'replay.diverged')).toMatchObject({
      sourceRunId: 'r1',
      divergenceKind: 'missing',
      key: 'k0',
    });
  });
});

describe('ctx.interrupt: payload validation at request time', () => {
  it.each([
    [
      'approval without title',
      '/data/title',
      {
        kind: 'approval',
        data: { artifactId: 'a', artifactType: 't', artifactData: {}, actions: ['accept'] },
      },
    ],
    [
      'clarification without questions',
      '/data/questions',
      { kind: 'clarification', data: { questions: [] } },
    ],
    [
      'external-event without correlation',
      '/data/correlation',
      { kind: 'external-event', data: { eventType: 'x' } },
    ],
    ['custom without customKind', '/data/customKind', { kind: 'custom', data: {} }],
    [
      'low-confidence out of range',
      '/data/observed',
      { kind: 'low-confidence', data: { agentId: 'agent', threshold: 0.7, observed: 2 } },
    ],
    [
      'conversation.exchange without prompt',
      '/data/prompt',
      { kind: 'conversation.exchange', data: { conversationId: 'c' } },
    ],
    ['an unknown kind', '/kind', { kind: 'poll', data: {} }],
    ['a zero timeout', '/timeoutMs', { kind: 'custom', timeoutMs: 0, data: { customKind: 'x' } }],
  ])(
    '%s fails the node with validation_error naming %s, and the run with run.failed',
    async (_name, path, payload) => {
      const nodes = withNode(async (ctx) => ({ v: await ctx.interrupt(payload as never) }));
      const { events, state, openInterrupt } = await start(single, { nodes });
      expect(types(events)).toEqual(['run.started', 'node.started', 'node.failed', 'run.failed']);
      const error = payloadOf(events, 'node.failed').error as {
        code: string;
        details: { errors: { path: string }[] };
      };
      expect(error.code).toBe('validation_error');
      expect(error.details.errors.map((e) => e.path)).toContain(path);
      expect(openInterrupt).toBeUndefined();
      expect(state.status).toBe('failed');
    },
  );

  it('a node error raised by the node itself carries its code and details', async () => {
    const nodes = withNode(async () => {
      throw new NodeError('my_code', 'mine', { x: 1 });
    });
    expect(payloadOf((await start(single, { nodes })).events, 'node.failed').error).toEqual({
      code: 'my_code',
      message: 'mine',
      retryable: false,
      details: { x: 1 },
    });
  });
});

describe('other interrupt nodes', () => {
  it('core.externalEvent suspends with external-event and outputs the event payload', async () => {
    const s0 = await start(
      workflow([
        {
          id: 'wait',
          typeId: 'core.externalEvent',
          config: { eventType: 'stripe.checkout.completed', correlation: { order: 7 } },
        },
      ]),
    );
    expect(s0.openInterrupt).toMatchObject({
      kind: 'external-event',
      data: { eventType: 'stripe.checkout.completed', correlation: { order: 7 } },
    });
    expect(payloadOf(s0.events, 'node.suspended').reason).toBe('external-event');
    const { events } = await resume(s0.state, { eventPayload: { paid: true } });
    expect(payloadOf(events, 'node.completed').outputs).toEqual({ eventPayload: { paid: true } });
  });

  it('core.custom suspends with a custom interrupt of config.customKind', async () => {
    const s0 = await start(
      workflow([
        { id: 'c', typeId: 'core.custom', config: { customKind: 'vendor.poll', payload: { p: 1 } } },
      ]),
    );
    expect(s0.openInterrupt).toMatchObject({
      kind: 'custom',
      data: { customKind: 'vendor.poll', payload: { p: 1 } },
    });
    expect(payloadOf((await resume(s0.state, { choice: 'b' })).events, 'node.completed').outputs).toEqual({
      choice: 'b',
    });
  });

  it('core.clarificationGate and core.custom carry their approvers and escalation policy to the interrupt service, outside the wire data', async () => {
    const people = {
      approversList: ['group:finance'],
      approverPolicy: 'enforced',
      escalation: { reminders: [{ afterMs: 100 }], defaultAction: 'expire' },
    };
    const questions = [{ id: 'q1', question: 'Which account?' }];
    const asked = await start(
      workflow([
        { id: 'ask', typeId: 'core.clarificationGate', config: { questions, timeoutMs: 1000, ...people } },
      ]),
    );
    expect(asked.openInterrupt).toMatchObject({
      kind: 'clarification',
      timeoutMs: 1000,
      data: { questions },
      hostData: people,
    });
    // The run log's interrupt.requested keeps the spec's closed ClarificationData.
    expect(payloadOf(asked.events, 'interrupt.requested').data).toEqual({ questions });
    expect(payloadOf(asked.events, 'interrupt.requested').hostData).toBeUndefined();
    const custom = await start(
      workflow([{ id: 'c', typeId: 'core.custom', config: { customKind: 'k', payload: 1, ...people } }]),
    );
    expect(custom.openInterrupt).toMatchObject({
      kind: 'custom',
      data: { customKind: 'k', payload: 1 },
      hostData: people,
    });
    // Nothing named, nothing added.
    const plain = await start(workflow([{ id: 'c', typeId: 'core.custom', config: { customKind: 'k' } }]));
    expect(plain.openInterrupt?.hostData).toBeUndefined();
  });

  it('core.conversationGate waits on one conversation.exchange turn and completes with the outcome', async () => {
    const s0 = await start(
      workflow([{ id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'Say hi' } }]),
    );
    expect(s0.openInterrupt).toMatchObject({
      kind: 'conversation.exchange',
      data: { conversationId: 'r1:talk:0', prompt: 'Say hi' },
    });
    expect(payloadOf(s0.events, 'node.suspended').reason).toBe('conversation-input');
    expect(payloadOf((await resume(s0.state, 'hi')).events, 'node.completed').outputs).toEqual({
      outcome: 'hi',
    });
  });
});
