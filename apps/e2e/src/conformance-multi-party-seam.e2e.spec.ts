import { OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { refusal } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// The conformance seam of host-sample-test-seams.md (RFC 0101 §Conformance), as
// multi-party-conversation-behavioral.test.ts drives it, on a host with the seam switched on.
const OPEN = '/v1/host/sample/conversation/multi-party/open';
const EXCHANGE = '/v1/host/sample/conversation/multi-party/exchange';
const CONVERSATION = 'conf:multi-party:council-q1';
const ROSTER = [
  { agentId: 'host:advisor-cfo', name: 'CFO' },
  { agentId: 'host:advisor-cmo', name: 'CMO' },
  { agentId: 'host:advisor-cto', name: 'CTO' },
];

interface Opened {
  conversationId: string;
  accepted: boolean;
  runId: string;
}
interface Accepted {
  accepted: boolean;
  conversationId: string;
  runId: string;
  turnIndex: number;
}
interface Turn {
  role: string;
  turnIndex: number;
  messageId: string;
  speakerId?: string;
  content: unknown;
}
type Snapshot = RunSnapshotBody & { channels?: { messages?: Turn[] } };

/** A roster-valid attributed agent turn, as the suite sends it. */
function agentTurn(speakerId: string | undefined, turnIndex: number): Record<string, unknown> {
  return {
    messageId: `council-q1:${turnIndex}:agent`,
    from: speakerId ?? 'agent',
    content: 'A roster-valid attributed turn.',
    ts: 1718900000000 + turnIndex,
    role: 'agent',
    turnIndex,
    ...(speakerId !== undefined ? { speakerId } : {}),
  };
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'multi-party conversation seam, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let t1: OpenWopClient;
    let t2: OpenWopClient;
    let runId: string;

    beforeAll(async () => {
      hut = await MODES[mode]({ OPENWOP_TEST_SEAM_ENABLED: 'true' });
      t1 = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
      // Another gateway instance where there is one: the seam holds no state of its own.
      t2 = new OpenWopClient({ baseUrl: hut.host.gateways.at(-1)!, apiKey: TEST_KEYS.t2 });
    });
    afterAll(async () => {
      await hut?.stop();
    });

    it('discovery lists both seam routes next to multiPartyConversation', async () => {
      const doc = await t1.call<{
        multiPartyConversation: { supported: boolean; maxParticipants: number };
        endpoints: { method: string; path: string; scope?: string }[];
      }>('GET', '/.well-known/openwop');
      expect(doc.multiPartyConversation).toEqual({ supported: true, maxParticipants: 8 });
      expect(doc.endpoints).toEqual(
        expect.arrayContaining([
          { method: 'POST', path: OPEN, scope: 'runs:create' },
          { method: 'POST', path: EXCHANGE, scope: 'approvals:respond' },
        ]),
      );
    });

    it('opens a 3-agent council as a waiting run of the caller, idempotently per conversationId', async () => {
      const opened = await t1.call<Opened>('POST', OPEN, {
        conversationId: CONVERSATION,
        participants: ROSTER,
      });
      expect(opened).toMatchObject({ conversationId: CONVERSATION, accepted: true });
      runId = opened.runId;
      const again = await t1.call<Opened>('POST', OPEN, {
        conversationId: CONVERSATION,
        participants: ROSTER,
      });
      expect(again).toEqual(opened);
      const run = (await t1.getRun(runId)) as Snapshot;
      expect(run.status).toBe('waiting-approval');
      const [summary] = await t1.listConversations(runId);
      expect(summary).toMatchObject({ nodeId: 'council', status: 'open' });
      const opening = (await t1.listEvents(runId)).find((e) => e.type === 'conversation.opened');
      expect((opening?.payload as { participants?: unknown }).participants).toEqual(ROSTER);

      const other = await refusal(
        t1.call('POST', OPEN, { conversationId: CONVERSATION, participants: ROSTER.slice(0, 2) }),
      );
      expect([other.status, other.code, other.details?.reason]).toEqual([
        400,
        'validation_error',
        'conversation_already_open',
      ]);
    });

    it('accepts an attributed in-roster agent turn (200)', async () => {
      const ok = await t1.call<Accepted>('POST', EXCHANGE, {
        conversationId: CONVERSATION,
        turn: agentTurn('host:advisor-cfo', 1),
      });
      expect(ok).toEqual({ accepted: true, conversationId: CONVERSATION, runId, turnIndex: 1 });
    });

    it('refuses an agent turn without speakerId, and one from a non-member, with validation_error; the run still waits', async () => {
      const missing = await refusal(
        t1.call('POST', EXCHANGE, { conversationId: CONVERSATION, turn: agentTurn(undefined, 2) }),
      );
      expect([missing.status, missing.code]).toEqual([400, 'validation_error']);
      expect(missing.details?.errors).toEqual([
        { path: '/speakerId', message: 'is required on an agent turn' },
      ]);

      // The suite sends the intruder at turnIndex 3 while the next is 2: refused for its speaker all the same.
      const intruder = await refusal(
        t1.call('POST', EXCHANGE, {
          conversationId: CONVERSATION,
          turn: agentTurn('host:advisor-intruder', 3),
        }),
      );
      expect([intruder.status, intruder.code]).toEqual([400, 'validation_error']);
      expect(intruder.details).toMatchObject({
        reason: 'speaker_not_participant',
        speakerId: 'host:advisor-intruder',
      });

      expect((await t1.getRun(runId)).status).toBe('waiting-approval');
    });

    it('refuses a roster over the advertised cap (8) or over the request’s maxParticipants with validation_error, opening nothing', async () => {
      const nine = Array.from({ length: 9 }, (_v, i) => ({ agentId: `host:advisor-${i}` }));
      const over = await refusal(
        t1.call('POST', OPEN, { conversationId: 'conf:multi-party:overflow', participants: nine }),
      );
      expect([over.status, over.code]).toEqual([400, 'validation_error']);
      expect(over.details).toMatchObject({
        reason: 'conversation_roster_exceeded',
        participants: 9,
        maxParticipants: 8,
      });
      expect(over.details?.errors).toEqual([expect.objectContaining({ path: '/participants' })]);

      const capped = await refusal(
        t1.call('POST', OPEN, {
          conversationId: 'conf:multi-party:capped',
          participants: ROSTER,
          maxParticipants: 2,
        }),
      );
      expect([capped.status, capped.code]).toEqual([400, 'validation_error']);
      expect(capped.details).toMatchObject({
        reason: 'conversation_roster_exceeded',
        participants: 3,
        maxParticipants: 2,
      });

      // Neither id names a conversation now.
      for (const conversationId of ['conf:multi-party:overflow', 'conf:multi-party:capped']) {
        const absent = await refusal(
          t1.call('POST', EXCHANGE, { conversationId, turn: agentTurn('host:advisor-0', 1) }),
        );
        expect([absent.status, absent.code]).toEqual([404, 'not_found']);
      }
    });

    it("another tenant cannot exchange on the first tenant's conversation, nor read its run; its own id of the same name is its own council", async () => {
      const foreign = await refusal(
        t2.call('POST', EXCHANGE, { conversationId: CONVERSATION, turn: agentTurn('host:advisor-cmo', 2) }),
      );
      expect([foreign.status, foreign.code]).toEqual([404, 'not_found']);
      expect((await refusal(t2.getRun(runId))).status).toBe(404);

      const own = await t2.call<Opened>('POST', OPEN, { conversationId: CONVERSATION, participants: ROSTER });
      expect(own.runId).not.toBe(runId);
      expect(
        await t2.call<Accepted>('POST', EXCHANGE, {
          conversationId: CONVERSATION,
          turn: agentTurn('host:advisor-cto', 1),
        }),
      ).toMatchObject({
        accepted: true,
        turnIndex: 1,
      });
    });

    it("shows the accepted turns, and none of the refused ones, in the run's transcript and its messages channel", async () => {
      const [summary] = await t1.listConversations(runId);
      const page = (await t1.getConversation(runId, summary!.conversationId)) as unknown as { turns: Turn[] };
      expect(page.turns.map((t) => [t.turnIndex, t.role, t.speakerId])).toEqual([
        [0, 'system', undefined],
        [1, 'agent', 'host:advisor-cfo'],
      ]);
      expect(page.turns[1]).toMatchObject({
        messageId: 'council-q1:1:agent',
        content: 'A roster-valid attributed turn.',
      });

      const snapshot = await waitFor(
        async () => {
          const s = (await t1.getRun(runId)) as Snapshot;
          return (s.channels?.messages?.length ?? 0) >= 2 ? s : undefined;
        },
        { timeoutMs: 10_000, what: 'the accepted turn in channels.messages' },
      );
      expect(snapshot.channels?.messages?.map((m) => [m.turnIndex, m.role, m.speakerId])).toEqual([
        [0, 'system', undefined],
        [1, 'agent', 'host:advisor-cfo'],
      ]);
    });
  },
);
