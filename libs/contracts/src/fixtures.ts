import { AGENT_FIXTURES } from './fixtures/agent.fixtures';
import { CONVERSATION_FIXTURES } from './fixtures/conversation.fixtures';
import { CORE_FIXTURES } from './fixtures/core.fixtures';
import { INTERRUPT_PROFILE_FIXTURES } from './fixtures/interrupt-profile.fixtures';
import { unsupportedFeatures, type WorkflowDefinition } from './workflow';

/** Every conformance workflow the project ships (see fixtures/ORIGIN.md), one group file per area. */
export const CONFORMANCE_FIXTURES: readonly WorkflowDefinition[] = [
  ...CORE_FIXTURES,
  ...AGENT_FIXTURES,
  ...INTERRUPT_PROFILE_FIXTURES,
  ...CONVERSATION_FIXTURES,
];

/** Whether the engine supports every node type and graph feature of the workflow. */
export function isRunnable(definition: WorkflowDefinition): boolean {
  return unsupportedFeatures(definition).length === 0;
}

/**
 * The fixtures the engine seeds at boot and discovery lists: those whose node types and graph
 * features it supports (today all but the two multi-party council fixtures, RFC 0101).
 */
export const SEEDED_FIXTURES: readonly WorkflowDefinition[] = CONFORMANCE_FIXTURES.filter(isRunnable);
