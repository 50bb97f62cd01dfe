import { approvalActionOf } from '../approval-resume';
import { defineNode, InterruptTimeoutError, NodeError, type NodeContext } from '../node';

/**
 * `core.approvalGate`: an `approval` interrupt built from the node config. `accept`/`edit-accept`
 * complete the node with the decision; `refine` completes it with the feedback (the workflow routes
 * the revision); `reject` fails it with `approval_rejected`, which an `any_failed` edge can route.
 * A timeout is a rejection whatever `config.onTimeout` says: a gate never grants by default
 * (`interrupt-profiles.md` §Approval-gate timeout, RFC 0093/0223).
 */
export const approvalGateNode = defineNode({
  typeId: 'core.approvalGate',
  async execute(ctx) {
    let resume: unknown;
    const data = approvalData(ctx);
    try {
      resume = await ctx.interrupt({ kind: 'approval', ...timeoutOf(ctx.config), data });
    } catch (e) {
      if (e instanceof InterruptTimeoutError) {
        throw new NodeError(
          'approval_rejected',
          `approval gate ${ctx.nodeId} timed out and was rejected: a timeout never grants`,
          {
            reason: 'timeout',
            ...(ctx.config.onTimeout !== undefined ? { onTimeout: ctx.config.onTimeout } : {}),
          },
        );
      }
      throw e;
    }
    const r = (typeof resume === 'object' && resume !== null ? resume : {}) as Record<string, unknown>;
    const action = approvalActionOf(resume, data.actions);
    const decided = { ...pick(r, ['decidedBy', 'decidedAt', 'feedback']) };
    switch (action) {
      case 'accept':
        return { action, approved: true, ...decided };
      case 'edit-accept':
        return {
          action,
          approved: true,
          artifactData: r.editedArtifactData,
          editedArtifactData: r.editedArtifactData,
          ...decided,
        };
      case 'refine':
        return {
          action,
          approved: false,
          refineFeedback: r.refineFeedback ?? { scope: 'whole', text: r.feedback },
          ...decided,
        };
      case 'reject':
        throw new NodeError('approval_rejected', `approval gate ${ctx.nodeId} was rejected`, {
          reason: 'rejected',
          ...decided,
        });
    }
  },
});

function approvalData(ctx: NodeContext): Record<string, unknown> {
  const c = ctx.config;
  return {
    artifactId: typeof c.artifactId === 'string' ? c.artifactId : `${ctx.runId}:${ctx.nodeId}`,
    artifactType: typeof c.artifactType === 'string' ? c.artifactType : 'workflow-node',
    title: typeof c.title === 'string' ? c.title : (ctx.node.name ?? `Approve ${ctx.nodeId}`),
    ...(c.description !== undefined ? { description: c.description } : {}),
    artifactData: c.artifactData !== undefined ? c.artifactData : ctx.inputs,
    actions: c.actions ?? ['accept', 'reject'],
    // Host extensions (ADR 0025): who a vote counts for; whether only a bearer may resolve; its escalation (ADR 0034).
    ...pick(c, [
      'requiredApprovals',
      'approversList',
      'approverGroupRefs',
      'approverRoleRefs',
      'rejectionPolicy',
      'voterAttribution',
      'resolveAuth',
      'escalation',
      'approverPolicy',
    ]),
  };
}

/** `config.timeoutMs`, else `config.timeoutSec` (the governance gate's spelling). */
function timeoutOf(c: Record<string, unknown>): { timeoutMs?: number } {
  if (c.timeoutMs !== undefined) return { timeoutMs: c.timeoutMs as number };
  if (typeof c.timeoutSec === 'number') return { timeoutMs: c.timeoutSec * 1000 };
  return {};
}

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]]));
}
