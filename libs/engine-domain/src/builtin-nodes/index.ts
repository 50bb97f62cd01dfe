import { createNodeRegistry, type NodeRegistry } from '../executor';
import type { NodeModule } from '../node';
import { agentConversationNode, agentCouncilNode, agentDialogueNode } from './agent-conversation.nodes';
import { approvalGateNode } from './approval-gate.node';
import { artifactEmitNode } from './artifact-emit.node';
import { clarificationGateNode } from './clarification-gate.node';
import { conversationGateNode } from './conversation-gate.node';
import { credentialNode } from './credential.node';
import { customNode } from './custom.node';
import { delayNode } from './delay.node';
import { externalEventNode } from './external-event.node';
import { failNode } from './fail.node';
import { identityNode } from './identity.node';
import { noopNode } from './noop.node';
import { subWorkflowNode } from './sub-workflow.node';
import { requiresMissingNode } from './requires-missing.node';

/** The node types the engine ships (contracts' `SUPPORTED_NODE_TYPES` lists the same typeIds). */
export const BUILTIN_NODES: readonly NodeModule[] = [
  noopNode,
  identityNode,
  failNode,
  delayNode,
  approvalGateNode,
  clarificationGateNode,
  externalEventNode,
  conversationGateNode,
  customNode,
  agentConversationNode,
  agentDialogueNode,
  agentCouncilNode,
  requiresMissingNode,
  subWorkflowNode,
  artifactEmitNode,
  credentialNode,
];

export { setCredentialConnectBase, connectUrlOf } from './credential.node';

export const BUILTIN_NODE_REGISTRY: NodeRegistry = createNodeRegistry(BUILTIN_NODES);
