import { OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal } from './e2e-kit';

interface RunEvent {
  type: string;
  sequence: number;
  payload: Record<string, unknown>;
}
interface ChannelMessage {
  messageId: string;
  nodeId: string;
  role: string;
  turnIndex: number;
  speakerId?: string;
  content: unknown;
}
type Snapshot = RunSnapshotBody & { channels?: { messages?: ChannelMessage[] } };

const CONVERSATION_FIXTURES = [
  'conformance-conversation-lifecycle',
  'conformance-conversation-vs-clarification',
  'conformance-conversation-replay',
];

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'conversation conformance fixtures, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let client: OpenWopClient;

    const waitStatus = (runId: string, statuses: string[], timeoutMs = 30_000): Promise<Snapshot> =>
      waitFor(
        async () => {
          const s = (await client.getRun(runId)) as Snapshot;
          return statuses.includes(s.status) ? s : undefined;
        },
        { timeoutMs, what: `run ${runId} ${statuses.join('|')}` },
      );
    const events = async (runId: string): Promise<RunEvent[]> =>
      (await client.listEvents(runId)) as unknown as RunEvent[];
    const runOf = async (workflowId: string): Promise<string> =>
      (await client.createRun({ workflowId })).runId;

    beforeAll(async () => {
      hut = await MODES[mode]();
      client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
    });
    afterAll(async () => {
      await hut?.stop();
    });

    it('discovery lists the three auto-resumed conversation fixtures next to the councils, and conversationPrimitive', async () => {
      const doc = await client.call<{ fixtures: string[]; conversationPrimitive?: boolean }>(
        'GET',
        '/.well-known/openwop',
      );
      expect(doc.conversationPrimitive).toBe(true);
      expect(doc.fixtures).toEqual(
        expect.arrayContaining([
          ...CONVERSATION_FIXTURES,
          'conformance-multi-party-council',
          'conformance-multi-party-council-oversize',
        ]),
      );
    });

    it('lifecycle: with no caller, the run opens, exchanges exactly one mock turn, closes, and completes; one conversationId, nothing after the close', async () => {
      const runId = await runOf('conformance-conversation-lifecycle');
      await waitStatus(runId, ['completed']);
      const log = await events(runId);
      const talk = log.filter((e) => e.type.startsWith('conversation.'));
      expect(talk.map((e) => e.type)).toEqual([
        'conversation.opened',
        'conversation.exchanged',
        'conversation.closed',
      ]);
      expect(new Set(talk.map((e) => e.payload.conversationId))).toEqual(new Set([`${runId}:convo:0`]));
      expect(talk.map((e) => e.payload.turnIndex ?? 0)).toEqual([0, 1, 2]);
      expect(talk[1]!.payload.turn as { role: string; speakerId?: string }).toMatchObject({
        role: 'agent',
        speakerId: 'host:conformance-mock',
      });
      // The closed event is the conversation's last; the node resumes and completes after it.
      const closedAt = talk[2]!.sequence;
      expect(log.filter((e) => e.sequence > closedAt).map((e) => e.type)).toEqual(
        expect.arrayContaining(['node.completed', 'run.completed']),
      );
      expect(log.some((e) => e.sequence > closedAt && e.type.startsWith('conversation.'))).toBe(false);
    });

    it('vs clarification: the conversation suspension writes conversation.* and no clarification.* event, while the clarification fixture does the opposite', async () => {
      const convo = await runOf('conformance-conversation-vs-clarification');
      await waitStatus(convo, ['completed']);
      const convoTypes = (await events(convo)).map((e) => e.type);
      expect(convoTypes.filter((t) => t.startsWith('conversation.')).length).toBe(3);
      expect(convoTypes.filter((t) => t.startsWith('clarification.'))).toEqual([]);

      const ask = await runOf('conformance-clarification');
      await waitStatus(ask, ['waiting-input']);
      const askTypes = (await events(ask)).map((e) => e.type);
      expect(askTypes).toContain('clarification.requested');
      expect(askTypes.filter((t) => t.startsWith('conversation.'))).toEqual([]);
    });

    it('replay: the snapshot folds the turns into channels.messages, and a :fork replay yields a byte-equal channels object with its own transcript and no divergence', async () => {
      const source = await runOf('conformance-conversation-replay');
      const done = await waitStatus(source, ['completed']);
      const messages = done.channels?.messages ?? [];
      expect(messages.map((m) => [m.turnIndex, m.role])).toEqual([
        [0, 'system'],
        [1, 'agent'],
        [2, 'system'],
      ]);
      expect(messages[1]).toMatchObject({
        nodeId: 'convo',
        speakerId: 'host:conformance-mock',
        content: 'openwop-conformance mock turn',
      });
      // Ids in the channel are relative to the run, so they survive a fork.
      expect(JSON.stringify(done.channels)).not.toContain(source);

      const forked = await client.call<{ runId: string }>('POST', `/v1/runs/${source}:fork`, {
        mode: 'replay',
      });
      const fork = await waitStatus(forked.runId, ['completed']);
      expect(JSON.stringify(fork.channels)).toBe(JSON.stringify(done.channels));
      const forkLog = await events(forked.runId);
      expect(forkLog.map((e) => e.type).filter((t) => t.startsWith('replay.'))).toEqual([]);
      expect(
        forkLog.filter((e) => e.type.startsWith('conversation.')).map((e) => e.payload.conversationId),
      ).toEqual([`${forked.runId}:convo:0`, `${forked.runId}:convo:0`, `${forked.runId}:convo:0`]);
      const transcript = await client.call<{ turns: unknown[] }>(
        'GET',
        `/v1/runs/${forked.runId}/conversations/${encodeURIComponent(`${forked.runId}:convo:0`)}`,
      );
      expect(transcript.turns).toHaveLength(3);
    });

    it('a run that held no conversation carries no channels', async () => {
      const runId = await runOf('conformance-noop');
      const s = await waitStatus(runId, ['completed']);
      expect(s.channels).toBeUndefined();
    });

    it('councils: the roster is carried on conversation.opened, a non-member turn is validation_error and leaves the wait open, a member turn is taken; an over-cap roster is validation_error naming the cap', async () => {
      const oversize = await refusal(
        client.createRun({ workflowId: 'conformance-multi-party-council-oversize' }),
      );
      expect([oversize.status, oversize.code]).toEqual([400, 'validation_error']);
      expect(oversize.details).toMatchObject({
        reason: 'conversation_roster_exceeded',
        participants: 64,
        maxParticipants: 8,
      });

      const runId = await runOf('conformance-multi-party-council');
      await waitStatus(runId, ['waiting-approval']);
      const opened = await waitFor(
        async () => (await events(runId)).find((e) => e.type === 'conversation.opened'),
        { timeoutMs: 10_000, what: 'conversation.opened' },
      );
      expect((opened.payload.participants as { agentId: string }[]).map((p) => p.agentId)).toEqual([
        'host:conformance-council-a',
        'host:conformance-council-b',
        'host:conformance-council-c',
      ]);
      const turn = (speakerId: string) => ({
        resumeValue: {
          operation: 'exchange',
          turn: { messageId: `m-${speakerId}`, from: speakerId, role: 'agent', speakerId, content: 'hi' },
        },
      });
      const intruder = await refusal(
        client.call('POST', `/v1/runs/${runId}/interrupts/convo`, turn('host:conformance-intruder')),
      );
      expect([intruder.status, intruder.code]).toEqual([400, 'validation_error']);
      expect(intruder.details).toMatchObject({
        reason: 'speaker_not_participant',
        speakerId: 'host:conformance-intruder',
      });
      expect((await client.getRun(runId)).status).toBe('waiting-approval');
      expect(
        await client.call('POST', `/v1/runs/${runId}/interrupts/convo`, turn('host:conformance-council-a')),
      ).toMatchObject({
        status: 'accepted',
        turnIndex: 1,
      });
      const snapshot = await waitFor(
        async () => {
          const s = (await client.getRun(runId)) as Snapshot;
          return (s.channels?.messages?.length ?? 0) >= 2 ? s : undefined;
        },
        { timeoutMs: 10_000, what: 'the member turn in channels.messages' },
      );
      expect(snapshot.channels?.messages?.[1]).toMatchObject({
        role: 'agent',
        speakerId: 'host:conformance-council-a',
      });
    });
  },
);
