import type { InterruptKind, WorkflowDefinition } from '@openwop/contracts';

/**
 * What a `node.suspended` of a confidence escalation carries besides the common fields
 * (`interrupt.md` §low-confidence, CP-1 of RFC 0002 §F): the escalating agent (`agentId`, and the
 * node's `AgentRef` as `agent` when the node names one), the run's resolved `threshold` and the
 * `observed` confidence below it. A reader of the log (or of an `updates` stream, which carries
 * `node.suspended` but not `interrupt.requested`) sees why the run waits without a join.
 *
 * Empty for every other kind, and for a low-confidence payload missing a field (the interrupt
 * payload check refuses such a payload before it gets here).
 */
export function lowConfidenceSuspension(
  kind: InterruptKind,
  data: unknown,
  workflow: WorkflowDefinition,
  nodeId: string,
): Record<string, unknown> {
  if (kind !== 'low-confidence' || typeof data !== 'object' || data === null) return {};
  const { agentId, threshold, observed } = data as Record<string, unknown>;
  if (typeof agentId !== 'string' || typeof threshold !== 'number' || typeof observed !== 'number') return {};
  const agent = workflow.nodes.find((n) => n.id === nodeId)?.agent;
  return {
    agentId,
    threshold,
    observed,
    ...(agent && agent.agentId === agentId ? { agent: { ...agent } } : {}),
  };
}
