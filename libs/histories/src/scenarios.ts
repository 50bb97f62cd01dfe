import { CONFORMANCE_FIXTURES, type WorkflowDefinition } from '@openwop/contracts';
import type { RecordedHistory } from './history';
import { Recorder } from './recorder';

function fixture(id: string): WorkflowDefinition {
  const found = CONFORMANCE_FIXTURES.find((w) => w.id === id);
  if (!found) throw new Error(`no conformance fixture ${id}`);
  return found;
}

/** A one-node workflow of `typeId` with `config` (agent nodes are not among the conformance fixtures). */
function oneNode(
  id: string,
  nodeId: string,
  typeId: string,
  config: Record<string, unknown>,
): WorkflowDefinition {
  return {
    id,
    name: id,
    version: '1',
    nodes: [{ id: nodeId, typeId, name: nodeId, position: { x: 0, y: 0 }, config, inputs: {} }],
    edges: [],
  };
}

/** One scenario: its name, what it covers, and how to drive it. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly record: () => Promise<RecordedHistory>;
}

async function approvalRun(r: Recorder, runId: string): Promise<void> {
  await r.start(runId, fixture('conformance-approval'), { topic: 'launch' });
  await r.resolve(runId, 'gate', { action: 'accept', feedback: 'ship it' });
}

/** The scenarios recorded under `libs/histories/recorded/<name>.json`. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'approval',
    description:
      'An approval gate: the run suspends, the interrupt is held, one accept resolves it, the run completes.',
    record: async () => {
      const r = new Recorder('approval', SCENARIOS[0]!.description);
      await approvalRun(r, 'run-approval');
      return r.history();
    },
  },
  {
    name: 'quorum',
    description:
      'A quorum gate of three attested voters (majority rejection): two accepts stay pending, a reject is counted, the third accept resolves.',
    record: async () => {
      const r = new Recorder('quorum', SCENARIOS[1]!.description);
      await r.start('run-quorum', fixture('conformance-interrupt-quorum'));
      await r.resolve('run-quorum', 'gate', { action: 'accept', voter: 'ann' }, 'alice');
      await r.resolve('run-quorum', 'gate', { action: 'reject', voter: 'bob', feedback: 'not yet' }, 'alice');
      await r.resolve('run-quorum', 'gate', { action: 'accept', voter: 'cy' }, 'alice');
      await r.resolve('run-quorum', 'gate', { action: 'accept', voter: 'dee' }, 'alice');
      return r.history();
    },
  },
  {
    name: 'clarification',
    description: 'A clarification gate answered with one answer per question.',
    record: async () => {
      const r = new Recorder('clarification', SCENARIOS[2]!.description);
      await r.start('run-clarification', fixture('conformance-clarification'));
      await r.resolve('run-clarification', 'ask', { answers: { q1: 'blue' } });
      return r.history();
    },
  },
  {
    name: 'external-event',
    description: 'An external event wait resolved by an event whose correlation matches.',
    record: async () => {
      const r = new Recorder('external-event', SCENARIOS[3]!.description);
      await r.start('run-external', fixture('conformance-interrupt-external-event'));
      await r.resolve(
        'run-external',
        'wait',
        {
          eventPayload: { orderId: 'fixture-order-1', status: 'completed' },
          correlation: { orderId: 'fixture-order-1', status: 'completed' },
        },
        'system:webhook',
      );
      return r.history();
    },
  },
  {
    name: 'conversation-agent',
    description:
      'agent.conversation with a scripted agent: the agent answers each person turn, the person closes with an outcome.',
    record: async () => {
      const r = new Recorder(
        'conversation-agent',
        SCENARIOS[4]!.description,
        (speaker, n) => `${speaker}: answer ${n}`,
      );
      const runId = 'run-conversation';
      await r.start(
        runId,
        oneNode('wf-agent-conversation', 'talk', 'agent.conversation', {
          agent_id: 'bot',
          prompt: 'Plan the launch',
        }),
      );
      const cid = `${runId}:talk:0`;
      await r.converse(runId, 'talk', {
        operation: 'exchange',
        turn: { messageId: `${cid}:user:1`, from: 'user', role: 'user', content: 'When can we ship?' },
      });
      await r.converse(runId, 'talk', {
        operation: 'exchange',
        turn: { messageId: `${cid}:user:2`, from: 'user', role: 'user', content: 'And the budget?' },
      });
      await r.converse(runId, 'talk', { operation: 'close', outcome: { decision: 'ship in Q3' } });
      return r.history();
    },
  },
  {
    name: 'council',
    description:
      'agent.council of three scripted agents: each answers the prompt in roster order, and the round closes the council.',
    record: async () => {
      const r = new Recorder('council', SCENARIOS[5]!.description, (speaker) => `${speaker} votes yes`);
      const runId = 'run-council';
      await r.start(
        runId,
        oneNode('wf-council', 'council', 'agent.council', {
          prompt: 'Should we launch in Q3?',
          participants: [{ agentId: 'host:cfo' }, { agentId: 'host:cto' }, { agentId: 'host:coo' }],
        }),
      );
      return r.history();
    },
  },
  {
    name: 'fork',
    description:
      'An approved run forked twice from its log: replay from its start (answers reused, same events) and branch from the gate (asks again), then the branch is answered.',
    record: async () => {
      const r = new Recorder('fork', SCENARIOS[6]!.description);
      await approvalRun(r, 'run-source');
      await r.fork('run-replay', 'run-source', 1, 'replay');
      const requested = r.run('run-source').lastSequence; // the whole log is history for the branch below
      await r.fork('run-branch', 'run-source', Math.min(2, requested), 'branch');
      if (r.run('run-branch').pending)
        await r.resolve('run-branch', 'gate', { action: 'reject', feedback: 'changed my mind' });
      return r.history();
    },
  },
  {
    name: 'timeout',
    description:
      'An approval gate with a timeout: the durable timer fires, the interrupt expires, the gate counts as rejected.',
    record: async () => {
      const r = new Recorder('timeout', SCENARIOS[7]!.description);
      await r.start('run-timeout', fixture('conformance-approval-timeout'));
      await r.expire('run-timeout');
      return r.history();
    },
  },
  {
    name: 'cancel',
    description:
      'A run cancelled while its approval is pending: the interrupt is cancelled, the run ends cancelled.',
    record: async () => {
      const r = new Recorder('cancel', SCENARIOS[8]!.description);
      await r.start('run-cancel', fixture('conformance-approval'));
      await r.cancel('run-cancel', 'no longer needed');
      return r.history();
    },
  },
];
