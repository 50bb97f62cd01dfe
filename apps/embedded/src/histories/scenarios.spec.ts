import type { WorkflowDefinition } from '@openwop/contracts';
import type { ScenarioDriver } from './host-recorder.spec';

/** One scenario: its name (the file `libs/histories/recorded/<name>.json`), what it covers, and what it sends. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly drive: (host: ScenarioDriver) => Promise<void>;
}

/** A one-node workflow of `typeId` with `config` (agent nodes are not among the seeded fixtures). */
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

async function approvalRun(host: ScenarioDriver, runId: string): Promise<void> {
  await host.start(runId, 'conformance-approval', { topic: 'launch' });
  await host.resolve(runId, 'gate', { action: 'accept', feedback: 'ship it' });
}

/** The scenarios recorded under `libs/histories/recorded/<name>.json` (ADR 0031). */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'approval',
    description:
      'An approval gate: the run suspends, the interrupt is held, one accept resolves it, the run completes.',
    drive: (host) => approvalRun(host, 'run-approval'),
  },
  {
    name: 'quorum',
    description:
      'A quorum gate of three attested voters (majority rejection): two accepts stay pending, a reject is counted, the third accept resolves.',
    drive: async (host) => {
      await host.start('run-quorum', 'conformance-interrupt-quorum');
      await host.resolve('run-quorum', 'gate', { action: 'accept', voter: 'ann' });
      await host.resolve('run-quorum', 'gate', { action: 'reject', voter: 'bob', feedback: 'not yet' });
      await host.resolve('run-quorum', 'gate', { action: 'accept', voter: 'cy' });
      await host.resolve('run-quorum', 'gate', { action: 'accept', voter: 'dee' });
    },
  },
  {
    name: 'clarification',
    description: 'A clarification gate answered with one answer per question.',
    drive: async (host) => {
      await host.start('run-clarification', 'conformance-clarification');
      await host.resolve('run-clarification', 'ask', { answers: { q1: 'blue' } });
    },
  },
  {
    name: 'external-event',
    description: 'An external event wait resolved by an event whose correlation matches.',
    drive: async (host) => {
      await host.start('run-external', 'conformance-interrupt-external-event');
      await host.resolve(
        'run-external',
        'wait',
        {
          eventPayload: { orderId: 'fixture-order-1', status: 'completed' },
          correlation: { orderId: 'fixture-order-1', status: 'completed' },
        },
        'system:webhook',
      );
    },
  },
  {
    name: 'conversation-agent',
    description:
      'agent.conversation with a scripted agent: the agent answers each person turn, the person closes with an outcome.',
    drive: async (host) => {
      const runId = 'run-conversation';
      await host.register(
        oneNode('wf-agent-conversation', 'talk', 'agent.conversation', {
          agent_id: 'bot',
          prompt: 'Plan the launch',
          script: ['bot: answer 0', 'bot: answer 1', 'bot: answer 2'],
        }),
      );
      await host.start(runId, 'wf-agent-conversation');
      const cid = `${runId}:talk:0`;
      await host.converse(runId, 'talk', {
        operation: 'exchange',
        turn: { messageId: `${cid}:user:1`, from: 'user', role: 'user', content: 'When can we ship?' },
      });
      await host.converse(runId, 'talk', {
        operation: 'exchange',
        turn: { messageId: `${cid}:user:2`, from: 'user', role: 'user', content: 'And the budget?' },
      });
      await host.converse(runId, 'talk', { operation: 'close', outcome: { decision: 'ship in Q3' } });
    },
  },
  {
    name: 'council',
    description:
      'agent.council of three scripted agents: each answers the prompt in roster order, and the round closes the council.',
    drive: async (host) => {
      await host.register(
        oneNode('wf-council', 'council', 'agent.council', {
          prompt: 'Should we launch in Q3?',
          participants: ['host:cfo', 'host:cto', 'host:coo'].map((agentId) => ({
            agentId,
            script: [`${agentId} votes yes`],
          })),
        }),
      );
      await host.start('run-council', 'wf-council');
    },
  },
  {
    name: 'fork',
    description:
      'An approved run forked twice from its log: replay from its start (answers reused, same events) and branch from the gate (asks again), then the branch is answered.',
    drive: async (host) => {
      await approvalRun(host, 'run-source');
      await host.fork('run-replay', 'run-source', 1, 'replay');
      await host.fork('run-branch', 'run-source', 2, 'branch');
      if ((await host.runStatus('run-branch')) === 'suspended')
        await host.resolve('run-branch', 'gate', { action: 'reject', feedback: 'changed my mind' });
    },
  },
  {
    name: 'timeout',
    description:
      'An approval gate with a timeout: the durable timer fires, the interrupt expires, the gate counts as rejected.',
    drive: async (host) => {
      await host.start('run-timeout', 'conformance-approval-timeout');
      await host.expire('run-timeout');
    },
  },
  {
    name: 'cancel',
    description:
      'A run cancelled while its approval is pending: the interrupt is cancelled, the run ends cancelled.',
    drive: async (host) => {
      await host.start('run-cancel', 'conformance-approval');
      await host.cancel('run-cancel', 'no longer needed');
    },
  },
];
