import type { RunEventDoc, WorkflowNode } from '@openwop/contracts';
import type { ConversationTurn } from '@openwop/conversation-domain';
import { agentPrompt, agentsOf, CLOSE_TOOL, followUpsOf } from './agent-driver';
import type { ConversationView } from './conversation-view';
import { runOptions } from './run.decider';
import { newRunRecord, type RunRecord } from './run.state';
import { workflow } from './test-kit.spec';

const CID = 'r1:talk:0';
const OPENED_AT = '2026-11-21T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(OPENED_AT) + ms).toISOString();

const userTurn = (turnIndex: number, content: unknown = `u${turnIndex}`): ConversationTurn => ({
  messageId: `m${turnIndex}`,
  from: 'user',
  role: 'user',
  content,
  ts: 0,
  turnIndex,
});
const agentTurn = (turnIndex: number, speakerId: string, content: unknown = `${speakerId}@${turnIndex}`) => ({
  ...userTurn(turnIndex, content),
  from: speakerId,
  role: 'agent' as const,
  speakerId,
});
const systemTurn = (turnIndex: number, content: unknown): ConversationTurn => ({
  ...userTurn(turnIndex, content),
  from: 'system',
  role: 'system',
});

function view(window: ConversationTurn[], over: Partial<ConversationView> = {}): ConversationView {
  const agentTurns: Record<string, number> = {};
  for (const t of window)
    if (t.role === 'agent') agentTurns[t.speakerId!] = (agentTurns[t.speakerId!] ?? 0) + 1;
  return {
    conversationId: CID,
    nodeId: 'talk',
    interruptId: 'r1:talk:0',
    status: 'open',
    first: userTurn(0, 'What should we build?'),
    window,
    older: 0,
    olderBy: {},
    agentTurns,
    nextTurnIndex: (window[window.length - 1]?.turnIndex ?? 0) + 1,
    openedAt: OPENED_AT,
    lastEventId: 'r1:4',
    ...over,
  };
}

function runWith(
  node: Partial<WorkflowNode>,
  v: ConversationView | undefined,
  extra: Partial<RunRecord> = {},
): RunRecord {
  const base = newRunRecord({
    runId: 'r1',
    workflow: workflow([{ id: 'talk', ...node }]),
    inputs: {},
    options: runOptions(undefined),
    tenant: 't1',
    principal: 'p1',
  });
  return { ...base, status: 'suspended', ...(v ? { conversations: { [CID]: v } } : {}), ...extra };
}

const touched = (conversationId = CID, type = 'conversation.exchanged'): RunEventDoc[] => [
  {
    eventId: 'r1:9',
    runId: 'r1',
    nodeId: 'talk',
    type,
    payload: { conversationId },
    timestamp: OPENED_AT,
    sequence: 9,
    schemaVersion: 1,
  } as RunEventDoc,
];

const conversationNode = (config: Record<string, unknown> = {}): Partial<WorkflowNode> => ({
  typeId: 'agent.conversation',
  config: { agent_id: 'bot', ...config },
});
const pair = [
  { agentId: 'a', name: 'Alice' },
  { agentId: 'b', name: 'Bob' },
];
const dialogueNode = (config: Record<string, unknown> = {}): Partial<WorkflowNode> => ({
  typeId: 'agent.dialogue',
  config: { participants: pair, ...config },
});
const councilNode = (participants: unknown[] = [{ agentId: 'x' }, { agentId: 'y' }, { agentId: 'z' }]) => ({
  typeId: 'agent.council',
  config: { participants },
});

describe('agentsOf', () => {
  it("agent.conversation is one agent: the node's config with agent_id (default 'agent')", () => {
    const node = {
      id: 'n',
      typeId: 'agent.conversation',
      config: { agent_id: 'bot', model: 'm1' },
    } as WorkflowNode;
    expect(agentsOf(node)).toEqual([{ agent_id: 'bot', model: 'm1', agentId: 'bot' }]);
    expect(agentsOf({ id: 'n', typeId: 'agent.conversation' })).toEqual([{ agentId: 'agent' }]);
  });

  it('multi-agent nodes: the participants in roster order, or none', () => {
    expect(agentsOf({ id: 'n', typeId: 'agent.dialogue', config: { participants: pair } })).toEqual(pair);
    expect(agentsOf({ id: 'n', typeId: 'agent.council', config: { participants: 'x' } })).toEqual([]);
  });
});

describe('followUpsOf: which conversations', () => {
  it('returns nothing when no conversation event was decided', () => {
    const s = runWith(conversationNode(), view([userTurn(1)]));
    expect(followUpsOf(s, [{ ...touched()[0]!, type: 'node.started' }], at(0))).toEqual([]);
    expect(followUpsOf(s, [], at(0))).toEqual([]);
  });

  it('returns nothing for an unknown or closed conversation, or a node missing from the workflow', () => {
    expect(
      followUpsOf(runWith(conversationNode(), view([userTurn(1)])), touched('r1:other:0'), at(0)),
    ).toEqual([]);
    expect(
      followUpsOf(runWith(conversationNode(), view([userTurn(1)], { status: 'closed' })), touched(), at(0)),
    ).toEqual([]);
    expect(
      followUpsOf(runWith(conversationNode(), view([userTurn(1)], { nodeId: 'gone' })), touched(), at(0)),
    ).toEqual([]);
    expect(followUpsOf(runWith(conversationNode(), undefined), touched(), at(0))).toEqual([]);
  });

  it('returns nothing for a node type agents do not drive (core.conversationGate)', () => {
    const s = runWith({ typeId: 'core.conversationGate' }, view([userTurn(1)]));
    expect(followUpsOf(s, touched(), at(0))).toEqual([]);
  });

  it('gives one follow-up per conversation even when several events touched it', () => {
    const s = runWith(conversationNode(), view([userTurn(1)]));
    expect(followUpsOf(s, [...touched(), ...touched(CID, 'conversation.opened')], at(0))).toHaveLength(1);
  });
});

describe('followUpsOf: agent.conversation', () => {
  it('asks the agent to reply after the opening turn, with the run, node, interrupt and turn', () => {
    const s = runWith(conversationNode(), view([]));
    expect(followUpsOf(s, touched(CID, 'conversation.opened'), at(0))).toEqual([
      {
        kind: 'reply',
        speakerId: 'bot',
        runId: 'r1',
        nodeId: 'talk',
        interruptId: 'r1:talk:0',
        conversationId: CID,
        afterTurnIndex: 0,
      },
    ]);
  });

  it('replies after a user turn and after a system turn, not after its own turn', () => {
    expect(
      followUpsOf(runWith(conversationNode(), view([agentTurn(1, 'bot'), userTurn(2)])), touched(), at(0)),
    ).toEqual([expect.objectContaining({ kind: 'reply', speakerId: 'bot', afterTurnIndex: 2 })]);
    expect(
      followUpsOf(runWith(conversationNode(), view([systemTurn(1, 'note')])), touched(), at(0))[0],
    ).toMatchObject({ kind: 'reply', afterTurnIndex: 1 });
    expect(
      followUpsOf(runWith(conversationNode(), view([userTurn(1), agentTurn(2, 'bot')])), touched(), at(0)),
    ).toEqual([]);
  });

  it("uses 'agent' as speaker when the node names no agent_id", () => {
    const s = runWith({ typeId: 'agent.conversation' }, view([]));
    expect(followUpsOf(s, touched(), at(0))[0]).toMatchObject({ kind: 'reply', speakerId: 'agent' });
  });
});

describe('followUpsOf: agent.dialogue', () => {
  const next = (window: ConversationTurn[], config: Record<string, unknown> = {}, now = at(0)) =>
    followUpsOf(runWith(dialogueNode(config), view(window)), touched(), now);

  it('the first participant opens; then speakers alternate', () => {
    expect(next([])).toEqual([expect.objectContaining({ kind: 'reply', speakerId: 'a', afterTurnIndex: 0 })]);
    expect(next([agentTurn(1, 'a')])[0]).toMatchObject({ kind: 'reply', speakerId: 'b', afterTurnIndex: 1 });
    expect(next([agentTurn(1, 'a'), agentTurn(2, 'b')])[0]).toMatchObject({ kind: 'reply', speakerId: 'a' });
  });

  it('after a user turn the first participant answers', () => {
    expect(next([agentTurn(1, 'a'), agentTurn(2, 'b'), userTurn(3)])[0]).toMatchObject({
      kind: 'reply',
      speakerId: 'a',
      afterTurnIndex: 3,
    });
  });

  it('does nothing without participants', () => {
    expect(
      followUpsOf(runWith({ typeId: 'agent.dialogue', config: {} }, view([])), touched(), at(0)),
    ).toEqual([]);
  });

  it(`closes when an agent replies ${CLOSE_TOOL} alone or on its last line (agent-closed)`, () => {
    expect(next([agentTurn(1, 'a'), agentTurn(2, 'b', `  ${CLOSE_TOOL} `)])).toEqual([
      {
        kind: 'close',
        reason: 'agent-closed',
        outcome: { reason: 'agent-closed', closedBy: 'b', atTurn: 2 },
        runId: 'r1',
        nodeId: 'talk',
        interruptId: 'r1:talk:0',
        conversationId: CID,
        afterTurnIndex: 2,
      },
    ]);
    expect(next([agentTurn(1, 'a', `We agree.\n${CLOSE_TOOL}`)])[0]).toMatchObject({
      kind: 'close',
      reason: 'agent-closed',
      outcome: { closedBy: 'a', atTurn: 1 },
    });
  });

  it(`does not close on ${CLOSE_TOOL} in the middle of a line, nor on a user's ${CLOSE_TOOL}`, () => {
    expect(next([agentTurn(1, 'a', `type ${CLOSE_TOOL} to stop`)])[0]).toMatchObject({
      kind: 'reply',
      speakerId: 'b',
    });
    expect(next([agentTurn(1, 'a', `${CLOSE_TOOL} now`)])[0]).toMatchObject({
      kind: 'reply',
      speakerId: 'b',
    });
    expect(next([userTurn(1, CLOSE_TOOL)])[0]).toMatchObject({ kind: 'reply', speakerId: 'a' });
  });

  it('closes on the sentinel phrase anywhere in an agent reply; an empty sentinel means none', () => {
    expect(next([agentTurn(1, 'a', 'ok, DEAL DONE, thanks')], { sentinel: 'DEAL DONE' })[0]).toMatchObject({
      kind: 'close',
      reason: 'sentinel',
      outcome: { reason: 'sentinel', closedBy: 'a', atTurn: 1 },
    });
    expect(next([agentTurn(1, 'a', 'deal done')], { sentinel: 'DEAL DONE' })[0]).toMatchObject({
      kind: 'reply',
    });
    expect(next([agentTurn(1, 'a', 'anything')], { sentinel: '' })[0]).toMatchObject({ kind: 'reply' });
  });

  it('the close tool wins over the sentinel', () => {
    expect(next([agentTurn(1, 'a', `STOP\n${CLOSE_TOOL}`)], { sentinel: 'STOP' })[0]).toMatchObject({
      reason: 'agent-closed',
    });
  });

  it('closes on an empty agent reply (empty-reply): blank string, null, {}', () => {
    for (const content of ['', '   \n', null, {}]) {
      expect(next([agentTurn(1, 'a'), agentTurn(2, 'b', content)])[0]).toMatchObject({
        kind: 'close',
        reason: 'empty-reply',
        outcome: { reason: 'empty-reply', closedBy: 'b', atTurn: 2 },
      });
    }
  });

  it('closes once ttl_ms has passed since the open, by the now argument', () => {
    const w = [agentTurn(1, 'a')];
    expect(next(w, { ttl_ms: 60_000 }, at(59_999))[0]).toMatchObject({ kind: 'reply', speakerId: 'b' });
    expect(next(w, { ttl_ms: 60_000 }, at(60_000))[0]).toMatchObject({
      kind: 'close',
      reason: 'ttl',
      outcome: { reason: 'ttl', closedBy: 'a', atTurn: 1 },
    });
    expect(next(w, { ttl_ms: '60000' }, at(10 * 60_000))[0]).toMatchObject({ kind: 'reply' });
  });

  it('does not close on ttl before any agent has spoken', () => {
    expect(next([], { ttl_ms: 0 }, at(1000))[0]).toMatchObject({ kind: 'reply', speakerId: 'a' });
  });

  it('with three participants, the next is the first one who did not just speak', () => {
    const trio = [{ agentId: 'a' }, { agentId: 'b' }, { agentId: 'c' }];
    expect(next([agentTurn(1, 'b')], { participants: trio })[0]).toMatchObject({ speakerId: 'a' });
    expect(next([agentTurn(1, 'a')], { participants: trio })[0]).toMatchObject({ speakerId: 'b' });
  });

  it('a single participant talks on (it has no other)', () => {
    expect(next([agentTurn(1, 'a')], { participants: [{ agentId: 'a' }] })[0]).toMatchObject({
      kind: 'reply',
      speakerId: 'a',
    });
  });
});

describe('followUpsOf: agent.council', () => {
  const next = (window: ConversationTurn[], over: Partial<ConversationView> = {}) =>
    followUpsOf(runWith(councilNode(), view(window, over)), touched(), at(0));

  it('asks each member once, in roster order', () => {
    expect(next([])[0]).toMatchObject({ kind: 'reply', speakerId: 'x', afterTurnIndex: 0 });
    expect(next([agentTurn(1, 'x')])[0]).toMatchObject({ kind: 'reply', speakerId: 'y', afterTurnIndex: 1 });
    expect(next([agentTurn(1, 'x'), agentTurn(2, 'y')])[0]).toMatchObject({ kind: 'reply', speakerId: 'z' });
  });

  it('asks the first member that has not answered, whatever order the answers came in', () => {
    expect(next([agentTurn(1, 'y')])[0]).toMatchObject({ kind: 'reply', speakerId: 'x' });
    expect(next([agentTurn(1, 'x'), agentTurn(2, 'z')])[0]).toMatchObject({ kind: 'reply', speakerId: 'y' });
  });

  it('closes with every answer once all members answered', () => {
    expect(
      next([
        agentTurn(1, 'x', 'yes'),
        userTurn(2, 'hm'),
        agentTurn(3, 'y', { vote: 'no' }),
        agentTurn(4, 'z', ''),
      ]),
    ).toEqual([
      {
        kind: 'close',
        reason: 'council-complete',
        outcome: { answers: { x: 'yes', y: { vote: 'no' }, z: '' } },
        runId: 'r1',
        nodeId: 'talk',
        interruptId: 'r1:talk:0',
        conversationId: CID,
        afterTurnIndex: 4,
      },
    ]);
  });

  it('closes at once, with no answers, when the council has no members', () => {
    const s = runWith(councilNode([]), view([]));
    expect(followUpsOf(s, touched(), at(0))[0]).toMatchObject({
      kind: 'close',
      reason: 'council-complete',
      outcome: { answers: {} },
    });
  });
});

describe('agentPrompt', () => {
  it('returns undefined for an unknown conversation, a speaker not on the node, or a missing node', () => {
    const s = runWith(dialogueNode(), view([]));
    expect(agentPrompt(s, 'r1:none:0', 'a')).toBeUndefined();
    expect(agentPrompt(s, CID, 'mallory')).toBeUndefined();
    expect(agentPrompt(runWith(dialogueNode(), view([], { nodeId: 'gone' })), CID, 'a')).toBeUndefined();
  });

  it('agent.conversation: system prompt, turn 0 and the window; own turns as assistant, the person as user (unnamed)', () => {
    const s = runWith(
      conversationNode({ system_prompt: 'Be brief.' }),
      view([
        agentTurn(1, 'bot', 'Hello!'),
        userTurn(2, 'Hi'),
        systemTurn(3, 'tool ran'),
        userTurn(4, { q: 1 }),
      ]),
    );
    expect(agentPrompt(s, CID, 'bot')!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What should we build?' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'tool ran' },
      { role: 'user', content: '{"q":1}' },
    ]);
  });

  it('has no system message when there is no system prompt and no role line, and skips the opened marker', () => {
    const s = runWith(
      conversationNode(),
      view([userTurn(1, 'Hi')], { first: systemTurn(0, { reason: 'opened' }) }),
    );
    expect(agentPrompt(s, CID, 'bot')!.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('keeps a system turn 0 that is not the opened marker', () => {
    const s = runWith(conversationNode(), view([], { first: systemTurn(0, 'Rules: be nice') }));
    expect(agentPrompt(s, CID, 'bot')!.messages).toEqual([{ role: 'system', content: 'Rules: be nice' }]);
  });

  it('agent.dialogue: own system prompt wins, plus the role line naming the others; others named as user', () => {
    const s = runWith(
      dialogueNode({
        system_prompt: 'Shared.',
        participants: [
          { agentId: 'host:a', name: 'Alice', system_prompt: 'You plan.' },
          { agentId: 'host:b' },
        ],
      }),
      view([agentTurn(1, 'host:a', 'Plan?'), agentTurn(2, 'host:b', 'Yes.'), userTurn(3, 'go')]),
    );
    const alice = agentPrompt(s, CID, 'host:a')!;
    expect(alice.messages).toEqual([
      {
        role: 'system',
        content: `You plan.\nYou are Alice, talking with host:b. Reply with ${CLOSE_TOOL} alone to end the conversation.`,
      },
      { role: 'user', content: 'user: What should we build?', name: 'user' },
      { role: 'assistant', content: 'Plan?' },
      { role: 'user', content: 'host:b: Yes.', name: 'host_b' },
      { role: 'user', content: 'user: go', name: 'user' },
    ]);
    expect(alice.agent.agentId).toBe('host:a');
    const bob = agentPrompt(s, CID, 'host:b')!;
    expect(bob.messages[0]).toEqual({
      role: 'system',
      content: `Shared.\nYou are host:b, talking with Alice. Reply with ${CLOSE_TOOL} alone to end the conversation.`,
    });
    expect(bob.messages[2]).toEqual({ role: 'user', content: 'host:a: Plan?', name: 'host_a' });
    expect(bob.messages[3]).toEqual({ role: 'assistant', content: 'Yes.' });
  });

  it('agent.council: the council role line lists the other members', () => {
    const s = runWith(
      councilNode([{ agentId: 'x', name: 'Xena' }, { agentId: 'y' }, { agentId: 'z', name: 'Zed' }]),
      view([]),
    );
    expect(agentPrompt(s, CID, 'y')!.messages[0]).toEqual({
      role: 'system',
      content:
        'You are y, one member of a council with Xena, Zed. Answer the question; you see the answers given before yours.',
    });
  });

  it('continue_from: the context of the earlier step as one system message after the system prompt', () => {
    const s = runWith(conversationNode({ system_prompt: 'Sys.', continue_from: 'earlier' }), view([]), {
      nodeOutputs: {
        earlier: {
          reply: 'x',
          context: {
            summary: '3 earlier turns are not shown (user: 3).',
            turns: [
              { from: 'user', content: 'Q1' },
              { from: 'host:a', speakerId: 'host:a', content: { a: 1 } },
            ],
          },
        },
      },
    });
    expect(agentPrompt(s, CID, 'bot')!.messages.slice(0, 3)).toEqual([
      { role: 'system', content: 'Sys.' },
      {
        role: 'system',
        content:
          'Earlier conversation (earlier):\n3 earlier turns are not shown (user: 3).\nuser: Q1\nhost:a: {"a":1}',
      },
      { role: 'user', content: 'What should we build?' },
    ]);
  });

  it('continue_from without a summary lists the turns; a step without context or a non-string reference adds nothing', () => {
    const withTurns = runWith(conversationNode({ continue_from: 'earlier' }), view([]), {
      nodeOutputs: { earlier: { context: { turns: [{ from: 'user', content: 'Q1' }] } } },
    });
    expect(agentPrompt(withTurns, CID, 'bot')!.messages[0]).toEqual({
      role: 'system',
      content: 'Earlier conversation (earlier):\nuser: Q1',
    });
    const noContext = runWith(conversationNode({ continue_from: 'earlier' }), view([]), {
      nodeOutputs: { earlier: { reply: 'x' } },
    });
    expect(agentPrompt(noContext, CID, 'bot')!.messages).toEqual([
      { role: 'user', content: 'What should we build?' },
    ]);
    const missing = runWith(conversationNode({ continue_from: 'nowhere' }), view([]));
    expect(agentPrompt(missing, CID, 'bot')!.messages).toHaveLength(1);
    const notString = runWith(conversationNode({ continue_from: 7 }), view([]), {
      nodeOutputs: { '7': { context: { turns: [{ from: 'user', content: 'Q1' }] } } },
    });
    expect(agentPrompt(notString, CID, 'bot')!.messages).toHaveLength(1);
  });

  it('adds the summary line between turn 0 and the window once turns fell out of it', () => {
    const s = runWith(
      conversationNode(),
      view([userTurn(12, 'latest')], { older: 11, olderBy: { user: 6, bot: 5 } }),
    );
    expect(agentPrompt(s, CID, 'bot')!.messages).toEqual([
      { role: 'user', content: 'What should we build?' },
      { role: 'system', content: '11 earlier turns are not shown (bot: 5, user: 6).' },
      { role: 'user', content: 'latest' },
    ]);
    const none = runWith(conversationNode(), view([userTurn(1, 'latest')]));
    expect(agentPrompt(none, CID, 'bot')!.messages.some((m) => m.content.includes('not shown'))).toBe(false);
  });

  it('a scripted agent.conversation agent past the end of its script closes the talk instead of an empty turn', () => {
    const node = conversationNode({ script: ['one', 'two'] });
    expect(followUpsOf(runWith(node, view([agentTurn(1, 'bot'), userTurn(2)])), touched(), at(0))).toEqual([
      expect.objectContaining({ kind: 'reply', speakerId: 'bot' }),
    ]);
    const spent = view([agentTurn(1, 'bot'), userTurn(2), agentTurn(3, 'bot'), userTurn(4)]);
    expect(followUpsOf(runWith(node, spent), touched(), at(0))).toEqual([
      expect.objectContaining({
        kind: 'close',
        reason: 'script-ended',
        outcome: { reason: 'script-ended', closedBy: 'bot', atTurn: 4 },
        afterTurnIndex: 4,
      }),
    ]);
    // Not scripted: it answers every turn.
    expect(followUpsOf(runWith(conversationNode(), spent), touched(), at(0))).toEqual([
      expect.objectContaining({ kind: 'reply', speakerId: 'bot' }),
    ]);
  });

  it('scripted reply: script[n] for the n-th turn of this agent, then empty past the end', () => {
    const script = ['one', 'two'];
    const node = conversationNode({ script });
    expect(agentPrompt(runWith(node, view([])), CID, 'bot')!.scripted).toBe('one');
    expect(agentPrompt(runWith(node, view([agentTurn(1, 'bot'), userTurn(2)])), CID, 'bot')!.scripted).toBe(
      'two',
    );
    const twice = view([agentTurn(1, 'bot'), userTurn(2), agentTurn(3, 'bot'), userTurn(4)]);
    expect(agentPrompt(runWith(node, twice), CID, 'bot')!.scripted).toBe('');
  });

  it('counts the turns of this agent only, including those out of the window (agentTurns)', () => {
    const s = runWith(
      dialogueNode({
        participants: [
          { agentId: 'a', script: ['a0', 'a1', 'a2'] },
          { agentId: 'b', script: ['b0'] },
        ],
      }),
      view([agentTurn(7, 'b')], { agentTurns: { a: 2, b: 3 } }),
    );
    expect(agentPrompt(s, CID, 'a')!.scripted).toBe('a2');
    expect(agentPrompt(s, CID, 'b')!.scripted).toBe('');
  });

  it('no script: no scripted key; a node-level script applies to agent.conversation only', () => {
    const plain = agentPrompt(runWith(conversationNode(), view([])), CID, 'bot')!;
    expect('scripted' in plain).toBe(false);
    const dialogue = agentPrompt(runWith(dialogueNode({ script: ['x'] }), view([])), CID, 'a')!;
    expect('scripted' in dialogue).toBe(false);
  });

  it('names that are not safe chat names are sanitised and capped at 64 characters', () => {
    const long = `agent ${'z'.repeat(80)}`;
    const s = runWith(
      dialogueNode({ participants: [{ agentId: 'a' }, { agentId: long }] }),
      view([agentTurn(1, long, 'hi')]),
    );
    const msg = agentPrompt(s, CID, 'a')!.messages.find((m) => m.content.endsWith(': hi'))!;
    expect(msg.name).toBe(`agent_${'z'.repeat(58)}`);
    expect(msg.name).toHaveLength(64);
  });
});
