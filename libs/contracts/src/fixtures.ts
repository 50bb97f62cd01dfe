import approval from './fixtures/conformance-approval.json';
import approvalRejectLoopback from './fixtures/conformance-approval-reject-loopback.json';
import approvalRejectRouted from './fixtures/conformance-approval-reject-routed.json';
import approvalTimeout from './fixtures/conformance-approval-timeout.json';
import approvalTimeoutApprove from './fixtures/conformance-approval-timeout-approve.json';
import agentLowConfidence from './fixtures/conformance-agent-low-confidence.json';
import cancellable from './fixtures/conformance-cancellable.json';
import clarification from './fixtures/conformance-clarification.json';
import council from './fixtures/conformance-multi-party-council.json';
import councilOversize from './fixtures/conformance-multi-party-council-oversize.json';
import delay from './fixtures/conformance-delay.json';
import noop from './fixtures/conformance-noop.json';
import { unsupportedFeatures, type WorkflowDefinition } from './workflow';

/** Every conformance workflow the project ships (see fixtures/ORIGIN.md). */
export const CONFORMANCE_FIXTURES: readonly WorkflowDefinition[] = [
  noop,
  delay,
  cancellable,
  approval,
  approvalRejectLoopback,
  approvalRejectRouted,
  approvalTimeout,
  approvalTimeoutApprove,
  agentLowConfidence,
  clarification,
  council,
  councilOversize,
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
