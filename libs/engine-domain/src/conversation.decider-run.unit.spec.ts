import type { WorkflowDefinition } from '@openwop/contracts';
import type { ConversationTurn } from '@openwop/conversation-domain';
import { agentPrompt } from './agent-driver';
import { BUILTIN_NODE_REGISTRY } from './builtin-nodes';
import { createNodeRegistry, type NodeRegistry } from './executor';
import { defineNode, InterruptCancelledError } from './node';
import { decideRun, RunNotFound, type RunDecision } from './run.decider';
import { initialRunState, type RunState } from './run.state';
import { context, LATER, NOW, payloadOf, record, resume, start, types, workflow } from './test-kit.spec';

const CID = 'r1:talk:0';
const IID = 'r1:talk:0';
const NOW_MS = Date.parse(NOW);

const turn = (turnIndex: number, over: Partial<ConversationTurn> = {}): ConversationTurn => ({
  messageId: `m${turnIndex}`,
  from: 'user',
  role: 'user',
  content: `u${turnIndex}`,
  ts: NOW_MS + turnIndex,
  turnIndex,
  ...over,
});
const said = (turnIndex: number, speakerId: string, content: unknown) =>
  turn(turnIndex, { from: speakerId, role: 'agent', speakerId, content });

function exchange(
  state: RunState,
  t: ConversationTurn,
  options: { interruptId?: string; commandId?: string; nodes?: NodeRegistry } = {},
): Promise<RunDecision> {
  return decideRun(
    {
      type: 'RecordConversation',
      runId: 'r1',
      nodeId: 'talk',
      interruptId: options.interruptId ?? IID,
      eventType: 'conversation.exchanged',
      payload: { conversationId: CID, turnIndex: t.turnIndex, turn: t },
      context: context(options.commandId ?? `x${t.turnIndex}`, LATER),
    },
    state,
    options.nodes,
  );
}

function closeTalk(state: RunState, t: ConversationTurn, outcome: unknown = 'done'): Promise<RunDecision> {
  return decideRun(
    {
      type: 'RecordConversation',
      runId: 'r1',
      nodeId: 'talk',
      interruptId: IID,
      eventType: 'conversation.closed',
      payload: { conversationId: CID, turnIndex: t.turnIndex, finalTurn: t, outcome },
      context: context(`close${t.turnIndex}`, LATER),
    },
    state,
  );
}

function append(
  state: RunState,
  chunks: Record<string, unknown>[],
  conversationId = CID,
  nodes?: NodeRegistry,
): Promise<RunDecision> {
  return decideRun(
    {
      type: 'AppendOutput',
      runId: 'r1',
      nodeId: 'talk',
      conversationId,
      chunks,
      context: context('out', LATER),
    },
    state,
    nodes,
  );
}

const chat = (config: Record<string, unknown> = {}): WorkflowDefinition =>
  workflow(
    [
      {
        id: 'talk',
        typeId: 'agent.conversation',
        config: { agent_id: 'bot', prompt: 'Plan a trip', script: ['Where to?', 'Booked.'], ...config },
      },
      { id: 'after' },
    ],
    [['talk', 'after']],
  );

describe('conversation run: StartRun opens the conversation', () => {
  it('suspends the node, then opens its conversation caused by node.suspended', async () => {
    const { events, state, openInterrupt } = await start(chat());
    expect(types(events)).toEqual([
      'run.started',
      'node.started',
      'interrupt.requested',
      'node.suspended',
      'conversation.opened',
    ]);
    const suspended = events[3]!;
    const opened = events[4]!;
    expect(opened.causationId).toBe(suspended.eventId);
    expect(opened.nodeId).toBe('talk');
    expect(opened.payload).toEqual({
      conversationId: CID,
      agentId: 'bot',
      initialTurn: {
        messageId: `${CID}:0:user`,
        from: 'user',
        role: 'user',
        content: 'Plan a trip',
        ts: NOW_MS,
        turnIndex: 0,
      },
    });
    expect(payloadOf(events, 'interrupt.requested')).toMatchObject({
      interruptId: IID,
      kind: 'conversation.exchange',
      data: { conversationId: CID, prompt: 'Plan a trip' },
    });
    expect(openInterrupt).toMatchObject({ interruptId: IID, kind: 'conversation.exchange' });
    expect(openInterrupt!.conversation).toMatchObject({
      eventId: opened.eventId,
      causationId: suspended.eventId,
    });
    const r = record(state);
    expect(r.status).toBe('suspended');
    expect(r.conversations![CID]).toMatchObject({
      status: 'open',
      nodeId: 'talk',
      interruptId: IID,
      nextTurnIndex: 1,
      window: [],
      lastEventId: opened.eventId,
      openedAt: NOW,
    });
  });

  it('asks the agent to reply to the opening turn (followUps)', async () => {
    const { followUps } = await start(chat());
    expect(followUps).toEqual([
      {
        kind: 'reply',
        runId: 'r1',
        nodeId: 'talk',
        interruptId: IID,
        conversationId: CID,
        speakerId: 'bot',
        afterTurnIndex: 0,
      },
    ]);
  });

  it('core.conversationGate opens with its prompt as a system turn 0 and asks no agent', async () => {
    const { events, followUps, state } = await start(
      workflow([{ id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'Tell me more' } }]),
    );
    expect(types(events).slice(-2)).toEqual(['node.suspended', 'conversation.opened']);
    expect(payloadOf(events, 'conversation.opened').initialTurn).toMatchObject({
      from: 'system',
      role: 'system',
      content: 'Tell me more',
      turnIndex: 0,
    });
    expect(followUps).toBeUndefined();
    expect(record(state).conversations![CID]!.status).toBe('open');
  });

  it('a workflow without conversations has no followUps and no conversations', async () => {
    const { followUps, state } = await start(workflow([{ id: 'n' }]));
    expect(followUps).toBeUndefined();
    expect(record(state).conversations).toBeUndefined();
  });
});

describe('conversation run: RecordConversation', () => {
  it('appends conversation.exchanged caused by the previous conversation event, not by the command', async () => {
    const started = await start(chat());
    const openedId = record(started.state).conversations![CID]!.lastEventId;
    const first = await exchange(started.state, said(1, 'bot', 'Where to?'));
    expect(first.events).toHaveLength(1);
    expect(first.events[0]).toMatchObject({
      type: 'conversation.exchanged',
      nodeId: 'talk',
      sequence: 5,
      eventId: 'r1:5',
      causationId: openedId,
      timestamp: LATER,
      payload: { conversationId: CID, turnIndex: 1 },
    });
    expect(first.followUps).toBeUndefined();
    const second = await exchange(first.state, turn(2, { content: 'Lisbon' }));
    expect(second.events[0]!.causationId).toBe('r1:5');
    expect(second.events[0]!.sequence).toBe(6);
    expect(second.followUps).toEqual([
      expect.objectContaining({ kind: 'reply', speakerId: 'bot', afterTurnIndex: 2 }),
    ]);
    expect(record(second.state).conversations![CID]).toMatchObject({
      nextTurnIndex: 3,
      lastEventId: 'r1:6',
      agentTurns: { bot: 1 },
    });
    expect(record(second.state).status).toBe('suspended');
  });

  it('the agent prompt of the recorded state carries the talk and the next scripted reply', async () => {
    let { state } = await start(chat({ system_prompt: 'You book trips.' }));
    state = (await exchange(state, said(1, 'bot', 'Where to?'))).state;
    state = (await exchange(state, turn(2, { content: 'Lisbon' }))).state;
    const prompt = agentPrompt(record(state), CID, 'bot')!;
    expect(prompt.messages).toEqual([
      { role: 'system', content: 'You book trips.' },
      { role: 'user', content: 'Plan a trip' },
      { role: 'assistant', content: 'Where to?' },
      { role: 'user', content: 'Lisbon' },
    ]);
    expect(prompt.scripted).toBe('Booked.');
  });

  it('ignores a wrong interruptId, a redelivered turn and a turn out of order: no events, same state', async () => {
    const started = await start(chat());
    const one = await exchange(started.state, said(1, 'bot', 'Where to?'));
    for (const decided of [
      await exchange(one.state, turn(2), { interruptId: 'r1:talk:9' }),
      await exchange(one.state, said(1, 'bot', 'Where to?')),
      await exchange(one.state, turn(3)),
      await exchange(one.state, turn(0)),
    ]) {
      expect(decided.events).toEqual([]);
      expect(decided.state).toBe(one.state);
      expect(decided.followUps).toBeUndefined();
    }
  });

  it('ignores a turn of a conversation the run does not hold', async () => {
    const started = await start(chat());
    const decided = await decideRun(
      {
        type: 'RecordConversation',
        runId: 'r1',
        nodeId: 'talk',
        interruptId: IID,
        eventType: 'conversation.exchanged',
        payload: { conversationId: 'r1:other:0', turnIndex: 1, turn: turn(1) },
        context: context('x', LATER),
      },
      started.state,
    );
    expect(decided.events).toEqual([]);
    expect(decided.state).toBe(started.state);
  });

  it('appends conversation.closed; the view closes, no follow-up, the node stays suspended until resumed', async () => {
    const started = await start(chat());
    const one = await exchange(started.state, said(1, 'bot', 'Where to?'));
    const closed = await closeTalk(one.state, turn(2, { content: 'bye' }), { ok: true });
    expect(closed.events).toHaveLength(1);
    expect(closed.events[0]).toMatchObject({
      type: 'conversation.closed',
      causationId: 'r1:5',
      payload: { conversationId: CID, turnIndex: 2, outcome: { ok: true } },
    });
    expect(closed.followUps).toBeUndefined();
    const r = record(closed.state);
    expect(r.conversations![CID]!.status).toBe('closed');
    expect(r.status).toBe('suspended');
    expect(r.pending?.interruptId).toBe(IID);
    const late = await exchange(closed.state, turn(3));
    expect(late.events).toEqual([]);
  });

  it('the closure resumes the node: its output is the reply, the talk context, and the run goes on', async () => {
    let { state } = await start(chat());
    state = (await exchange(state, said(1, 'bot', 'Where to?'))).state;
    state = (await closeTalk(state, turn(2, { content: 'bye' }))).state;
    const tail = [{ from: 'bot', speakerId: 'bot', content: 'Where to?' }];
    const resumed = await resume(state, {
      operation: 'close',
      conversationId: CID,
      outcome: 'done',
      reason: 'user-closed',
      turnCount: 3,
      lastAgentTurn: { content: 'Where to?', speakerId: 'bot' },
      tail,
      summary: 'nothing older',
    });
    expect(payloadOf(resumed.events, 'node.completed', 'talk').outputs).toEqual({
      reply: 'Where to?',
      conversationId: CID,
      turnCount: 3,
      reason: 'user-closed',
      outcome: 'done',
      context: { turns: tail, summary: 'nothing older' },
    });
    expect(record(resumed.state).status).toBe('completed');
    expect(resumed.followUps).toBeUndefined();
  });

  it('does nothing on a terminal run and refuses an unknown run', async () => {
    const started = await start(chat());
    const cancelled = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c9', LATER) },
      started.state,
    );
    const late = await exchange(cancelled.state, said(1, 'bot', 'Where to?'));
    expect(late.events).toEqual([]);
    expect(late.state).toBe(cancelled.state);
    await expect(exchange(initialRunState(), turn(1))).rejects.toThrow(RunNotFound);
  });
});

describe('conversation run: AppendOutput', () => {
  it('appends one output.chunk per chunk while the conversation is open, chained from the command', async () => {
    const started = await start(chat());
    const { events, state, followUps } = await append(started.state, [{ delta: 'Whe' }, { delta: 're?' }]);
    expect(events.map((e) => [e.type, e.nodeId, e.sequence, e.causationId, e.payload])).toEqual([
      ['output.chunk', 'talk', 5, 'out', { delta: 'Whe' }],
      ['output.chunk', 'talk', 6, 'r1:5', { delta: 're?' }],
    ]);
    expect(followUps).toBeUndefined();
    expect(record(state).lastSequence).toBe(6);
    expect(record(state).status).toBe('suspended');
  });

  it('appends nothing once the conversation closed, for an unknown conversation, or on a terminal run', async () => {
    const started = await start(chat());
    expect((await append(started.state, [{ delta: 'x' }], 'r1:other:0')).events).toEqual([]);
    const closed = await closeTalk(started.state, turn(1));
    const afterClose = await append(closed.state, [{ delta: 'x' }]);
    expect(afterClose.events).toEqual([]);
    expect(afterClose.state).toBe(closed.state);
    const cancelled = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c9', LATER) },
      started.state,
    );
    expect((await append(cancelled.state, [{ delta: 'x' }])).events).toEqual([]);
    await expect(append(initialRunState(), [{ delta: 'x' }])).rejects.toThrow(RunNotFound);
  });
});

describe('conversation run: agent.dialogue and agent.council through the decider', () => {
  it('dialogue: speakers alternate, then /close decides a close follow-up', async () => {
    const wf = workflow([
      {
        id: 'talk',
        typeId: 'agent.dialogue',
        config: {
          topic: 'Split the work',
          participants: [
            { agentId: 'a', name: 'Alice' },
            { agentId: 'b', name: 'Bob' },
          ],
        },
      },
    ]);
    const started = await start(wf);
    expect(payloadOf(started.events, 'conversation.opened')).toMatchObject({
      participants: [
        { agentId: 'a', name: 'Alice' },
        { agentId: 'b', name: 'Bob' },
      ],
      initialTurn: { role: 'user', content: 'Split the work' },
    });
    expect(record(started.state).conversations![CID]!.participants).toEqual(['a', 'b']);
    expect(started.followUps).toEqual([expect.objectContaining({ kind: 'reply', speakerId: 'a' })]);
    const one = await exchange(started.state, said(1, 'a', 'I take the API.'));
    expect(one.followUps).toEqual([
      expect.objectContaining({ kind: 'reply', speakerId: 'b', afterTurnIndex: 1 }),
    ]);
    const two = await exchange(one.state, said(2, 'b', 'I take the UI.'));
    expect(two.followUps).toEqual([
      expect.objectContaining({ kind: 'reply', speakerId: 'a', afterTurnIndex: 2 }),
    ]);
    const three = await exchange(two.state, said(3, 'a', 'Agreed.\n/close'));
    expect(three.followUps).toEqual([
      {
        kind: 'close',
        runId: 'r1',
        nodeId: 'talk',
        interruptId: IID,
        conversationId: CID,
        reason: 'agent-closed',
        outcome: { reason: 'agent-closed', closedBy: 'a', atTurn: 3 },
        afterTurnIndex: 3,
      },
    ]);
  });

  it('dialogue: ttl_ms is measured by the clock of the recording command', async () => {
    const wf = workflow([
      {
        id: 'talk',
        typeId: 'agent.dialogue',
        config: { ttl_ms: 60_000, participants: [{ agentId: 'a' }, { agentId: 'b' }] },
      },
    ]);
    const started = await start(wf);
    // LATER is five minutes after NOW (the open).
    const one = await exchange(started.state, said(1, 'a', 'hello'));
    expect(one.followUps).toEqual([expect.objectContaining({ kind: 'close', reason: 'ttl' })]);
  });

  it('council: members answer in roster order, then it closes with the answers', async () => {
    const wf = workflow([
      {
        id: 'talk',
        typeId: 'agent.council',
        config: { prompt: 'Ship it?', participants: [{ agentId: 'x' }, { agentId: 'y' }] },
      },
    ]);
    const started = await start(wf);
    expect(started.followUps).toEqual([expect.objectContaining({ kind: 'reply', speakerId: 'x' })]);
    const one = await exchange(started.state, said(1, 'x', 'yes'));
    expect(one.followUps).toEqual([expect.objectContaining({ kind: 'reply', speakerId: 'y' })]);
    const two = await exchange(one.state, said(2, 'y', 'no'));
    expect(two.followUps).toEqual([
      expect.objectContaining({
        kind: 'close',
        reason: 'council-complete',
        outcome: { answers: { x: 'yes', y: 'no' } },
        afterTurnIndex: 2,
      }),
    ]);
  });
});

describe('conversation run: cancel re-enters the node', () => {
  const seen: string[] = [];
  const talker = defineNode({
    typeId: 'test.talker',
    async execute(ctx) {
      try {
        const closure = await ctx.interrupt<{ outcome?: unknown }>({
          kind: 'conversation.exchange',
          data: { conversationId: `${ctx.runId}:${ctx.nodeId}:${ctx.visit}`, prompt: 'Talk' },
        });
        ctx.emit('log.appended', { level: 'info', message: 'talk over' });
        return { outcome: closure.outcome ?? null };
      } catch (e) {
        if (e instanceof InterruptCancelledError) {
          seen.push('cancelled');
          ctx.emit('log.appended', { level: 'info', message: 'cleaned up' });
        }
        throw e;
      }
    },
  });
  const nodes = createNodeRegistry([...BUILTIN_NODE_REGISTRY.values(), talker]);
  const wf = workflow([{ id: 'talk', typeId: 'test.talker' }]);
  const begin = () => start(wf, { nodes });

  beforeEach(() => {
    seen.length = 0;
  });

  it('an agent node is cancelled with its run; later turns are ignored', async () => {
    const started = await start(chat());
    const { events, state } = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c9', LATER) },
      started.state,
    );
    expect(events.map((e) => [e.type, e.nodeId])).toEqual([
      ['node.cancelled', 'talk'],
      ['run.cancelled', undefined],
    ]);
    expect(payloadOf(events, 'node.cancelled')).toEqual({
      nodeId: 'talk',
      reason: 'cancelled',
      interruptId: IID,
    });
    expect(record(state).status).toBe('cancelled');
  });

  it("the node's clean-up emits are kept, also after streamed output", async () => {
    const started = await begin();
    const streamed = await append(started.state, [{ delta: 'a' }, { delta: 'b' }], CID, nodes);
    expect(streamed.events).toHaveLength(2);
    const { events } = await decideRun(
      { type: 'CancelRun', runId: 'r1', context: context('c9', LATER) },
      streamed.state,
      nodes,
    );
    expect(seen).toEqual(['cancelled']);
    expect(events.map((e) => [e.type, (e.payload as { message?: string }).message])).toEqual([
      ['log.appended', 'cleaned up'],
      ['node.cancelled', undefined],
      ['run.cancelled', undefined],
    ]);
  });

  it("streamed output does not swallow the node's own emits after the close resumes it", async () => {
    const started = await begin();
    const streamed = await append(started.state, [{ delta: 'a' }], CID, nodes);
    const closed = await closeTalk(streamed.state, turn(1));
    const resumed = await resume(closed.state, { operation: 'close', outcome: 42 }, { nodes });
    expect(payloadOf(resumed.events, 'log.appended', 'talk')).toEqual({
      level: 'info',
      message: 'talk over',
    });
    expect(payloadOf(resumed.events, 'node.completed', 'talk').outputs).toEqual({ outcome: 42 });
  });
});
