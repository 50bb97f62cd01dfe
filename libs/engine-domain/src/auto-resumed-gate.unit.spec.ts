import type { RunEventDoc } from '@openwop/contracts';
import type { ConversationTurn } from '@openwop/conversation-domain';
import {
  agentPrompt,
  agentsOf,
  followUpsOf,
  isAutoResumedGate,
  MOCK_SPEAKER_ID,
  MOCK_TURN_TEXT,
} from './agent-driver';
import type { ConversationView } from './conversation-view';
import { runOptions } from './run.decider';
import { newRunRecord, type RunRecord } from './run.state';
import { workflow } from './test-kit.spec';

const CID = 'r1:convo:0';
const opened: ConversationTurn = {
  messageId: `${CID}:0:system`,
  from: 'system',
  role: 'system',
  content: { reason: 'opened' },
  ts: 1,
  turnIndex: 0,
};

function gateRun(config: Record<string, unknown>, window: ConversationTurn[]): RunRecord {
  const base = newRunRecord({
    runId: 'r1',
    workflow: workflow([{ id: 'convo', typeId: 'core.conversationGate', config }]),
    inputs: {},
    options: runOptions(undefined),
    tenant: 't1',
    principal: 'p1',
  });
  const agentTurns: Record<string, number> = {};
  for (const t of window)
    if (t.role === 'agent') agentTurns[t.speakerId!] = (agentTurns[t.speakerId!] ?? 0) + 1;
  const view: ConversationView = {
    conversationId: CID,
    nodeId: 'convo',
    interruptId: 'r1:1',
    status: 'open',
    first: opened,
    window,
    older: 0,
    olderBy: {},
    agentTurns,
    nextTurnIndex: window.length + 1,
    openedAt: '2026-11-21T00:00:00.000Z',
    lastEventId: 'r1:3',
  };
  return { ...base, status: 'suspended', conversations: { [CID]: view } };
}

const touched: RunEventDoc[] = [
  {
    eventId: 'r1:3',
    runId: 'r1',
    nodeId: 'convo',
    type: 'conversation.opened',
    payload: { conversationId: CID },
    timestamp: '2026-11-21T00:00:00.000Z',
    sequence: 3,
    schemaVersion: 1,
  },
];

const mockTurn = (speakerId: string): ConversationTurn => ({
  messageId: `${CID}:agent:${speakerId}:0`,
  from: speakerId,
  role: 'agent',
  speakerId,
  content: MOCK_TURN_TEXT,
  ts: 2,
  turnIndex: 1,
});

describe('an auto-resumed core.conversationGate (mockAutoResume, the conversation fixtures)', () => {
  it('is recognised only with mockAutoResume: true', () => {
    expect(
      isAutoResumedGate({ id: 'g', typeId: 'core.conversationGate', config: { mockAutoResume: true } }),
    ).toBe(true);
    expect(
      isAutoResumedGate({ id: 'g', typeId: 'core.conversationGate', config: { mockAutoResume: false } }),
    ).toBe(false);
    expect(isAutoResumedGate({ id: 'g', typeId: 'core.conversationGate' })).toBe(false);
    expect(isAutoResumedGate({ id: 'g', typeId: 'agent.council', config: { mockAutoResume: true } })).toBe(
      false,
    );
  });

  it('right after the open, the mock speaker owes exactly one reply', () => {
    const s = gateRun({ mockAutoResume: true }, []);
    expect(followUpsOf(s, touched, '2026-11-21T00:00:01.000Z')).toEqual([
      expect.objectContaining({
        kind: 'reply',
        speakerId: MOCK_SPEAKER_ID,
        conversationId: CID,
        afterTurnIndex: 0,
      }),
    ]);
    // The reply is scripted, so a redelivered agent.turn streams the same text.
    expect(agentPrompt(s, CID, MOCK_SPEAKER_ID)?.scripted).toBe(MOCK_TURN_TEXT);
  });

  it('after its one turn, the host closes with the turn as outcome: open → exchange → close', () => {
    const s = gateRun({ mockAutoResume: true }, [mockTurn(MOCK_SPEAKER_ID)]);
    expect(followUpsOf(s, touched, '2026-11-21T00:00:02.000Z')).toEqual([
      expect.objectContaining({
        kind: 'close',
        reason: 'mock-auto-resume',
        outcome: { reply: MOCK_TURN_TEXT, speakerId: MOCK_SPEAKER_ID },
        afterTurnIndex: 1,
      }),
    ]);
  });

  it('with a roster, the mock speaks as its first member (so the turn passes RFC 0101 membership)', () => {
    const config = { mockAutoResume: true, participants: [{ agentId: 'host:a' }, { agentId: 'host:b' }] };
    expect(agentsOf({ id: 'convo', typeId: 'core.conversationGate', config }).map((a) => a.agentId)).toEqual([
      'host:a',
    ]);
    expect(followUpsOf(gateRun(config, []), touched, '2026-11-21T00:00:01.000Z')).toEqual([
      expect.objectContaining({ kind: 'reply', speakerId: 'host:a' }),
    ]);
  });

  it('a gate without mockAutoResume (the council fixture) waits for its callers: no follow-up', () => {
    expect(followUpsOf(gateRun({ mockAutoResume: false }, []), touched, '2026-11-21T00:00:01.000Z')).toEqual(
      [],
    );
    expect(followUpsOf(gateRun({}, [mockTurn('host:x')]), touched, '2026-11-21T00:00:01.000Z')).toEqual([]);
  });
});
