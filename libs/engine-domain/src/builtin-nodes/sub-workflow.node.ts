import { defineNode, NodeError } from '../node';

/**
 * `core.subWorkflow` (fixtures.md, node-packs.md reserved typeId): starts a child run of
 * `config.workflowId` in the run's tenant with `config.inputs` (else the node's inputs) and waits for
 * it (blocking dispatch; `waitForCompletion: false` is not supported). The child's outputs come out
 * on the `result` port. A child that failed or was cancelled fails the node
 * (`child_run_failed` / `child_run_cancelled`, naming the child), so the parent's outcome is
 * deterministic; cancelling the parent cancels the child (ADR 0025).
 */
export const subWorkflowNode = defineNode({
  typeId: 'core.subWorkflow',
  async execute(ctx) {
    const { workflowId, inputs, waitForCompletion } = ctx.config;
    if (typeof workflowId !== 'string' || workflowId === '')
      throw new NodeError('validation_error', `core.subWorkflow ${ctx.nodeId} needs config.workflowId`);
    if (waitForCompletion === false)
      throw new NodeError('validation_error', 'core.subWorkflow supports waitForCompletion: true only');
    const childInputs =
      typeof inputs === 'object' && inputs !== null && !Array.isArray(inputs)
        ? (inputs as Record<string, unknown>)
        : ctx.inputs;
    const outcome = await ctx.startChild({ workflowId, inputs: childInputs });
    if (outcome.status === 'completed')
      return { result: outcome.outputs ?? {}, childRunId: outcome.childRunId };
    throw new NodeError(
      `child_run_${outcome.status}`,
      `child run ${outcome.childRunId} of ${workflowId} ${outcome.status}`,
      {
        childRunId: outcome.childRunId,
        ...(outcome.error ? { childError: outcome.error } : {}),
      },
    );
  },
});
