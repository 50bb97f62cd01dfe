import type { RunEventDoc } from '@openwop/contracts';
import {
  conversationIdOf,
  evolveConversation,
  type ConversationView,
  type ProjectedTurn,
} from './conversation.projection';

const CID = 'r:chat:0';
const at = (s: number): string => `2026-11-21T00:00:${String(s).padStart(2, '0')}.000Z`;
const ev = (sequence: number, type: RunEventDoc['type'], payload: unknown): RunEventDoc => ({
  eventId: `r:${sequence}`,
  runId: 'r',
  nodeId: 'chat',
  type,
  payload,
  sequence,
  timestamp: at(sequence),
});
const turn = (
  turnIndex: number,
  role: ProjectedTurn['role'],
  extra: Partial<ProjectedTurn> = {},
): ProjectedTurn => ({
  messageId: `${CID}:${turnIndex}:${role}`,
  from: role === 'user' ? 'user' : role === 'system' ? 'system' : 'host:planner',
  content: `t${turnIndex}`,
  ts: 1_700_000_000_000 + turnIndex,
  role,
  turnIndex,
  ...(role === 'agent' ? { speakerId: 'host:planner' } : {}),
  ...extra,
});

const opened = ev(3, 'conversation.opened', {
  conversationId: CID,
  participants: [{ agentId: 'host:planner' }, { agentId: 'host:critic' }],
  initialTurn: turn(0, 'system'),
});
const exchanged = (sequence: number, index: number, role: ProjectedTurn['role']) =>
  ev(sequence, 'conversation.exchanged', { conversationId: CID, turnIndex: index, turn: turn(index, role) });

/** Folds events as the projector does: each change's conversation is the next state. */
function fold(events: readonly RunEventDoc[]): { view: ConversationView | null; turns: ProjectedTurn[] } {
  let view: ConversationView | null = null;
  const turns: ProjectedTurn[] = [];
  for (const e of events) {
    const change = evolveConversation(view, e);
    if (!change) continue;
    view = change.conversation;
    if (change.turn) turns.push(change.turn);
  }
  return { view, turns };
}

describe('conversation projection', () => {
  it('opens with the roster and the initial turn 0', () => {
    const change = evolveConversation(null, opened);
    expect(change).toEqual({
      conversation: {
        conversationId: CID,
        runId: 'r',
        nodeId: 'chat',
        status: 'open',
        participants: [{ agentId: 'host:planner' }, { agentId: 'host:critic' }],
        turnCount: 1,
        openedAt: at(3),
        lastSequence: 3,
      },
      turn: turn(0, 'system'),
    });
  });

  it('counts exchanged turns and closes with the final turn and outcome, keeping when it opened', () => {
    const closed = ev(9, 'conversation.closed', {
      conversationId: CID,
      turnIndex: 4,
      finalTurn: turn(4, 'user'),
      outcome: { ok: true },
    });
    const { view, turns } = fold([
      opened,
      exchanged(5, 1, 'agent'),
      exchanged(6, 2, 'user'),
      exchanged(8, 3, 'agent'),
      closed,
    ]);
    expect(view).toMatchObject({
      status: 'closed',
      turnCount: 5,
      openedAt: at(3),
      closedAt: at(9),
      outcome: { ok: true },
      lastSequence: 9,
    });
    expect(turns.map((t) => [t.turnIndex, t.role, t.speakerId])).toEqual([
      [0, 'system', undefined],
      [1, 'agent', 'host:planner'],
      [2, 'user', undefined],
      [3, 'agent', 'host:planner'],
      [4, 'user', undefined],
    ]);
  });

  it('records a timed-out close as outcome null', () => {
    const timeout = ev(5, 'conversation.closed', {
      conversationId: CID,
      turnIndex: 1,
      finalTurn: turn(1, 'system'),
      outcome: null,
    });
    expect(fold([opened, timeout]).view).toMatchObject({ status: 'closed', outcome: null, turnCount: 2 });
  });

  it('is unchanged by a turn folded twice (redelivery), and turnCount never shrinks', () => {
    const once = fold([opened, exchanged(5, 1, 'agent'), exchanged(6, 2, 'user')]).view;
    const twice = fold([
      opened,
      exchanged(5, 1, 'agent'),
      exchanged(6, 2, 'user'),
      exchanged(5, 1, 'agent'),
    ]).view;
    expect(twice).toEqual(once);
    expect(evolveConversation(once, exchanged(5, 1, 'agent'))?.conversation.turnCount).toBe(3);
  });

  it('takes the turn index from the payload when the turn omits it', () => {
    const { turnIndex: _drop, ...bare } = turn(1, 'agent');
    const change = evolveConversation(
      evolveConversation(null, opened)!.conversation,
      ev(4, 'conversation.exchanged', { conversationId: CID, turnIndex: 1, turn: bare }),
    );
    expect(change?.turn?.turnIndex).toBe(1);
    expect(change?.conversation.turnCount).toBe(2);
  });

  it('ignores other events and conversation events without a conversation id', () => {
    expect(evolveConversation(null, ev(1, 'output.chunk', { nodeId: 'chat', chunk: 'x' }))).toBeUndefined();
    expect(
      evolveConversation(null, ev(1, 'conversation.opened', { initialTurn: turn(0, 'system') })),
    ).toBeUndefined();
    expect(conversationIdOf(ev(1, 'node.started', { conversationId: CID }))).toBeUndefined();
    expect(conversationIdOf(opened)).toBe(CID);
  });
});
