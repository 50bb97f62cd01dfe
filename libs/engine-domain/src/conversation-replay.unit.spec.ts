import type { RunEventDoc } from '@openwop/contracts';
import type { ConversationTurn } from '@openwop/conversation-domain';
import { forkSourceOf } from './fork-source';
import { decideFork } from './replay';
import { decideRun, type RunDecision } from './run.decider';
import { initialRunState, type RunState } from './run.state';
import { context, LATER, NOW, record, resume, start, types, workflow } from './test-kit.spec';

const CID = 'r1:talk:0';
const gate = workflow([{ id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'Talk' } }]);

const said = (turnIndex: number, speakerId: string): ConversationTurn => ({
  messageId: `${CID}:agent:${speakerId}:${turnIndex - 1}`,
  from: speakerId,
  role: 'agent',
  speakerId,
  content: `turn ${turnIndex}`,
  ts: Date.parse(NOW) + turnIndex,
  turnIndex,
});

function record_(
  state: RunState,
  eventType: 'conversation.exchanged' | 'conversation.closed',
  t: ConversationTurn,
): Promise<RunDecision> {
  return decideRun(
    {
      type: 'RecordConversation',
      runId: 'r1',
      nodeId: 'talk',
      interruptId: record(state).pending!.interruptId,
      eventType,
      payload:
        eventType === 'conversation.exchanged'
          ? { conversationId: CID, turnIndex: t.turnIndex, turn: t }
          : { conversationId: CID, turnIndex: t.turnIndex, finalTurn: t, outcome: 'agreed' },
      context: context(`rec${t.turnIndex}`, LATER),
    },
    state,
  );
}

/** A conversation run: opened, one exchange, closed, resumed with the closure; all its events. */
async function conversedRun(): Promise<RunDecision & { all: RunEventDoc[] }> {
  const all: RunEventDoc[] = [];
  let d = await start(gate);
  all.push(...d.events);
  d = await record_(d.state, 'conversation.exchanged', said(1, 'host:a'));
  all.push(...d.events);
  d = await record_(d.state, 'conversation.closed', said(2, 'host:b'));
  all.push(...d.events);
  d = await resume(d.state, {
    operation: 'close',
    conversationId: CID,
    outcome: 'agreed',
    reason: 'closed',
    turnCount: 3,
    tail: [],
  });
  all.push(...d.events);
  return { ...d, all };
}

function forkOf(events: readonly RunEventDoc[], mode: 'replay' | 'branch' = 'replay', fromSeq = 0) {
  return decideFork(
    {
      type: 'ForkRun',
      runId: 'f1',
      sourceRunId: 'r1',
      mode,
      fromSeq,
      workflow: gate,
      inputs: {},
      ...forkSourceOf(events, fromSeq, mode),
      context: { commandId: 'f0', now: '2026-12-01T00:00:00.000Z', tenant: 't1', principal: 'p1' },
    },
    initialRunState(),
  );
}

const conversationEvents = (events: readonly RunEventDoc[]) =>
  events.filter((e) => e.type.startsWith('conversation.'));

describe('a replay fork re-folds the recorded conversation (RFC 0005 §G)', () => {
  it('forkSourceOf hands over the conversation a reused resolution closed, by its source id', async () => {
    const source = await conversedRun();
    const { conversations } = forkSourceOf(source.all, 0, 'replay');
    expect(Object.keys(conversations)).toEqual([CID]);
    expect(conversations[CID]!.map((e) => e.type)).toEqual([
      'conversation.opened',
      'conversation.exchanged',
      'conversation.closed',
    ]);
  });

  it('the fork writes the source turns verbatim under its own run id, before the node completes, with no divergence', async () => {
    const source = await conversedRun();
    expect(record(source.state).status).toBe('completed');
    const f = await forkOf(source.all);
    expect(types(f.events)).toEqual([
      'run.started',
      'node.started',
      'conversation.opened',
      'conversation.exchanged',
      'conversation.closed',
      'node.completed',
      'run.completed',
    ]);
    const rebased = JSON.parse(
      JSON.stringify(conversationEvents(source.all).map((e) => e.payload)).replaceAll('r1:', 'f1:'),
    );
    expect(conversationEvents(f.events).map((e) => e.payload)).toEqual(rebased);
    expect(record(f.state).conversations?.['f1:talk:0']).toMatchObject({
      status: 'closed',
      nextTurnIndex: 3,
    });
  });

  it('a replay from inside the conversation, whose history already copied the open, adds only the turns it lacks', async () => {
    const source = await conversedRun();
    const opened = source.all.find((e) => e.type === 'conversation.opened')!;
    const f = await forkOf(source.all, 'replay', opened.sequence + 1);
    // The copied history holds turn 0; the fork answers the wait from the record and re-folds turns 1 and 2 once.
    expect(
      conversationEvents(f.events).map((e) => (e.payload as { turnIndex?: number }).turnIndex ?? 0),
    ).toEqual([0, 1, 2]);
    expect(record(f.state).status).toBe('completed');
  });

  it('a branch from inside the conversation re-folds nothing: the source never closed it before the fork point, so the fork waits', async () => {
    const source = await conversedRun();
    const opened = source.all.find((e) => e.type === 'conversation.opened')!;
    const f = await forkOf(source.all, 'branch', opened.sequence + 1);
    expect(conversationEvents(f.events).map((e) => e.type)).toEqual(['conversation.opened']);
    expect(record(f.state).status).toBe('suspended');
  });

  it('a source without conversations forks with none', async () => {
    const plain = await start(workflow([{ id: 'n', typeId: 'core.noop' }]));
    expect(forkSourceOf(plain.events, 0, 'replay').conversations).toEqual({});
  });
});
