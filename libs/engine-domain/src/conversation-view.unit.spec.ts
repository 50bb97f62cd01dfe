import type { RunEventDoc } from '@openwop/contracts';
import type { ConversationTurn } from '@openwop/conversation-domain';
import {
  contentText,
  DEFAULT_WINDOW,
  evolveConversations,
  lastTurnOf,
  olderSummary,
  speakerOf,
  type ConversationView,
} from './conversation-view';

const CID = 'r1:talk:0';
const OPENED_AT = '2026-11-21T00:00:00.000Z';

let seq = 0;
function event(type: string, payload: unknown, nodeId = 'talk'): RunEventDoc {
  seq += 1;
  return {
    eventId: `r1:${seq}`,
    runId: 'r1',
    nodeId,
    type,
    payload,
    timestamp: OPENED_AT,
    sequence: seq,
    schemaVersion: 1,
    causationId: `r1:${seq - 1}`,
  } as RunEventDoc;
}

const turn = (turnIndex: number, over: Partial<ConversationTurn> = {}): ConversationTurn => ({
  messageId: `m${turnIndex}`,
  from: 'user',
  role: 'user',
  content: `t${turnIndex}`,
  ts: 0,
  turnIndex,
  ...over,
});
const agent = (turnIndex: number, speakerId: string, content: unknown = `${speakerId}@${turnIndex}`) =>
  turn(turnIndex, { from: speakerId, role: 'agent', speakerId, content });

const opened = (
  initialTurn: ConversationTurn = turn(0, { from: 'system', role: 'system', content: { reason: 'opened' } }),
  extra: Record<string, unknown> = {},
) => event('conversation.opened', { conversationId: CID, initialTurn, ...extra });
const exchanged = (t: ConversationTurn, conversationId = CID) =>
  event('conversation.exchanged', { conversationId, turnIndex: t.turnIndex, turn: t });
const closed = (t: ConversationTurn) =>
  event('conversation.closed', {
    conversationId: CID,
    turnIndex: t.turnIndex,
    finalTurn: t,
    outcome: 'done',
  });

function fold(events: RunEventDoc[], interruptId = 'i1') {
  return events.reduce<Readonly<Record<string, ConversationView>> | undefined>(
    (acc, e) => evolveConversations(acc, e, interruptId),
    undefined,
  );
}

beforeEach(() => {
  seq = 0;
});

describe('evolveConversations: opening', () => {
  it('opens a view with turn 0, an empty window, the node, interrupt, clock and event id', () => {
    const first = turn(0, { content: 'hello' });
    const e = opened(first, { participants: [{ agentId: 'a' }, { agentId: 'b', name: 'B' }] });
    const views = evolveConversations(undefined, e, 'i7');
    expect(views).toEqual({
      [CID]: {
        conversationId: CID,
        nodeId: 'talk',
        interruptId: 'i7',
        status: 'open',
        first,
        window: [],
        older: 0,
        olderBy: {},
        agentTurns: {},
        nextTurnIndex: 1,
        participants: ['a', 'b'],
        openedAt: OPENED_AT,
        lastEventId: 'r1:1',
      },
    });
  });

  it('leaves out participants when the opening names none, and counts an agent turn 0', () => {
    const views = fold([opened(agent(0, 'host:a'))]);
    expect(views![CID]!.participants).toBeUndefined();
    expect('participants' in views![CID]!).toBe(false);
    expect(views![CID]!.agentTurns).toEqual({ 'host:a': 1 });
  });

  it("uses '' for a missing nodeId or interruptId", () => {
    const e = opened();
    delete (e as { nodeId?: string }).nodeId;
    const view = evolveConversations(undefined, e, undefined)![CID]!;
    expect(view.nodeId).toBe('');
    expect(view.interruptId).toBe('');
  });

  it('is idempotent: a redelivered opened event returns the same object', () => {
    const views = fold([opened(), exchanged(turn(1))]);
    const again = evolveConversations(views, opened(turn(0, { content: 'different' })), 'i2');
    expect(again).toBe(views);
    expect(again![CID]!.nextTurnIndex).toBe(2);
    expect(again![CID]!.interruptId).toBe('i1');
  });

  it('keeps other conversations when opening a second one', () => {
    const views = fold([opened()]);
    const second = evolveConversations(
      views,
      event('conversation.opened', { conversationId: 'r1:other:0', initialTurn: turn(0) }, 'other'),
      'i2',
    );
    expect(Object.keys(second!).sort()).toEqual(['r1:other:0', CID]);
    expect(second![CID]).toBe(views![CID]);
    expect(second!['r1:other:0']!.nodeId).toBe('other');
  });
});

describe('evolveConversations: turns', () => {
  it('ignores events that are not conversation events (same reference, even undefined)', () => {
    const views = fold([opened()]);
    expect(evolveConversations(views, event('node.started', { nodeId: 'talk' }), 'i1')).toBe(views);
    expect(evolveConversations(undefined, event('run.started', {}), 'i1')).toBeUndefined();
  });

  it('appends exchanged turns, advances nextTurnIndex and lastEventId, counts agent turns per speaker', () => {
    const views = fold([
      opened(),
      exchanged(turn(1)),
      exchanged(agent(2, 'a')),
      exchanged(agent(3, 'b')),
      exchanged(agent(4, 'a')),
    ]);
    const v = views![CID]!;
    expect(v.window.map((t) => t.turnIndex)).toEqual([1, 2, 3, 4]);
    expect(v.nextTurnIndex).toBe(5);
    expect(v.lastEventId).toBe('r1:5');
    expect(v.agentTurns).toEqual({ a: 2, b: 1 });
    expect(v.older).toBe(0);
    expect(v.status).toBe('open');
  });

  it('ignores a turn for an unknown conversation', () => {
    const views = fold([opened()]);
    expect(evolveConversations(views, exchanged(turn(1), 'r1:nope:0'), 'i1')).toBe(views);
    expect(evolveConversations(undefined, exchanged(turn(1)), 'i1')).toBeUndefined();
  });

  it('ignores a redelivered turn (index already recorded) and one out of order (a gap)', () => {
    const views = fold([opened(), exchanged(turn(1)), exchanged(turn(2))]);
    expect(evolveConversations(views, exchanged(turn(2, { content: 'dup' })), 'i1')).toBe(views);
    expect(evolveConversations(views, exchanged(turn(1)), 'i1')).toBe(views);
    expect(evolveConversations(views, exchanged(turn(4)), 'i1')).toBe(views);
    expect(views![CID]!.window.map((t) => t.content)).toEqual(['t1', 't2']);
  });

  it('ignores a payload whose turnIndex disagrees with the next index, even if the turn is right', () => {
    const views = fold([opened()]);
    const e = event('conversation.exchanged', { conversationId: CID, turnIndex: 2, turn: turn(1) });
    expect(evolveConversations(views, e, 'i1')).toBe(views);
  });

  it('closes with the final turn in the window and then ignores every later turn', () => {
    const views = fold([opened(), exchanged(agent(1, 'a')), closed(turn(2, { content: 'bye' }))]);
    const v = views![CID]!;
    expect(v.status).toBe('closed');
    expect(v.window.map((t) => t.content)).toEqual(['a@1', 'bye']);
    expect(v.nextTurnIndex).toBe(3);
    expect(v.lastEventId).toBe('r1:3');
    expect(evolveConversations(views, exchanged(turn(3)), 'i1')).toBe(views);
    expect(evolveConversations(views, closed(turn(3)), 'i1')).toBe(views);
  });

  it('counts an agent final turn', () => {
    const views = fold([opened(), closed(agent(1, 'b'))]);
    expect(views![CID]!.agentTurns).toEqual({ b: 1 });
  });

  it('does not mutate the previous views', () => {
    const before = fold([opened(), exchanged(agent(1, 'a'))]);
    const snapshot = JSON.parse(JSON.stringify(before));
    evolveConversations(before, exchanged(agent(2, 'a')), 'i1');
    expect(before).toEqual(snapshot);
  });
});

describe('evolveConversations: bounded window', () => {
  it(`keeps the last ${DEFAULT_WINDOW} turns and counts the dropped ones per speaker`, () => {
    expect(DEFAULT_WINDOW).toBe(10);
    const events = [opened(turn(0, { content: 'prompt' }))];
    // 1: user, 2: a, 3: system, 4: b, 5: a, then 6..13 user
    events.push(exchanged(turn(1)));
    events.push(exchanged(agent(2, 'a')));
    events.push(exchanged(turn(3, { from: 'system', role: 'system', content: 'note' })));
    events.push(exchanged(agent(4, 'b')));
    events.push(exchanged(agent(5, 'a')));
    for (let i = 6; i <= 13; i++) events.push(exchanged(turn(i)));
    const v = fold(events)![CID]!;
    expect(v.window).toHaveLength(10);
    expect(v.window.map((t) => t.turnIndex)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(v.older).toBe(3);
    expect(v.olderBy).toEqual({ user: 1, a: 1, system: 1 });
    expect(v.first.content).toBe('prompt');
    expect(v.agentTurns).toEqual({ a: 2, b: 1 });
    expect(v.nextTurnIndex).toBe(14);
  });

  it('has exactly 10 turns and nothing older after 10 turns; 1 older after 11', () => {
    const events = [opened()];
    for (let i = 1; i <= 10; i++) events.push(exchanged(turn(i)));
    const ten = fold(events)![CID]!;
    expect(ten.window).toHaveLength(10);
    expect(ten.older).toBe(0);
    expect(ten.olderBy).toEqual({});
    const eleven = evolveConversations({ [CID]: ten }, exchanged(turn(11)), 'i1')![CID]!;
    expect(eleven.window.map((t) => t.turnIndex)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(eleven.older).toBe(1);
    expect(eleven.olderBy).toEqual({ user: 1 });
  });

  it('stays bounded over a long conversation, with olderBy summing to older', () => {
    const events = [opened()];
    for (let i = 1; i <= 500; i++) events.push(exchanged(i % 2 ? agent(i, 'a') : agent(i, 'b')));
    const v = fold(events)![CID]!;
    expect(v.window).toHaveLength(10);
    expect(v.older).toBe(490);
    expect(v.olderBy).toEqual({ a: 245, b: 245 });
    expect(v.agentTurns).toEqual({ a: 250, b: 250 });
    expect(v.window[0]!.turnIndex).toBe(491);
  });
});

describe('speakerOf, lastTurnOf, olderSummary, contentText', () => {
  const base = fold([opened(turn(0, { content: 'p' }))])![CID]!;

  it('speakerOf: speakerId when given, else from', () => {
    expect(speakerOf(agent(1, 'host:a'))).toBe('host:a');
    expect(speakerOf(turn(1, { from: 'system', role: 'system' }))).toBe('system');
    expect(speakerOf(turn(1, { from: 'x', speakerId: 'y' }))).toBe('y');
  });

  it('lastTurnOf: turn 0 before anyone spoke, else the latest window turn', () => {
    expect(lastTurnOf(base)).toBe(base.first);
    const later = { ...base, window: [turn(1), agent(2, 'a')] };
    expect(lastTurnOf(later).turnIndex).toBe(2);
  });

  it('olderSummary: undefined with nothing older; singular and plural lines, speakers sorted', () => {
    expect(olderSummary(base)).toBeUndefined();
    expect(olderSummary({ ...base, older: 1, olderBy: { user: 1 } })).toMatch(
      /^1 earlier turn (is|are) not shown \(user: 1\)\.$/,
    );
    expect(olderSummary({ ...base, older: 5, olderBy: { zed: 1, alice: 3, bob: 1 } })).toBe(
      '5 earlier turns are not shown (alice: 3, bob: 1, zed: 1).',
    );
  });

  it('contentText: strings as is, null/undefined as empty, anything else as JSON', () => {
    expect(contentText('hi')).toBe('hi');
    expect(contentText('')).toBe('');
    expect(contentText(null)).toBe('');
    expect(contentText(undefined)).toBe('');
    expect(contentText({ a: 1, b: [true] })).toBe('{"a":1,"b":[true]}');
    expect(contentText(42)).toBe('42');
    expect(contentText(false)).toBe('false');
  });
});

describe('evolveConversations: agent ids are data, whatever their name', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'counts the turns of an agent called %s',
    (id) => {
      const v = fold([opened(), exchanged(agent(1, id)), exchanged(agent(2, id))])![CID]!;
      expect(Object.hasOwn(v.agentTurns, id)).toBe(true);
      expect(v.agentTurns[id]).toBe(2);
    },
  );
});
