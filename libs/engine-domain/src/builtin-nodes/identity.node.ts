import { defineNode } from '../node';

/**
 * `core.identity`: outputs its inputs. With `config.mockConfidence` it acts as a mock agent: it
 * emits `agent.decided` and, when the confidence is below the run's escalation threshold, escalates
 * with a `low-confidence` interrupt and adds the ratified decision to its outputs. Per `interrupt.md`
 * §low-confidence: an absent confidence is no signal and a non-finite (or out-of-range) one is a
 * buggy payload, so neither escalates; equal to the threshold continues.
 */
export const identityNode = defineNode({
  typeId: 'core.identity',
  async execute(ctx) {
    const outputs = { ...ctx.inputs };
    const observed = ctx.config.mockConfidence;
    if (observed === undefined) return outputs;
    const agentId = ctx.node.agent?.agentId ?? ctx.nodeId;
    const threshold = ctx.configurable.escalationThreshold;
    const decision = ctx.config.mockDecision ?? { outputs };
    if (typeof observed !== 'number' || !Number.isFinite(observed) || observed < 0 || observed > 1) {
      ctx.emit('agent.decided', { agentId, decision });
      ctx.emit('log.appended', {
        level: 'warn',
        message: `agent ${agentId} reported a confidence that is not a number in [0, 1]; not escalating`,
        nodeId: ctx.nodeId,
        fields: { observed: typeof observed === 'number' ? String(observed) : JSON.stringify(observed) },
      });
      return outputs;
    }
    ctx.emit('agent.decided', { agentId, decision, confidence: observed });
    if (observed >= threshold) return outputs;
    const ratified = await ctx.interrupt({
      kind: 'low-confidence',
      data: { agentId, threshold, observed, decision },
    });
    return { ...outputs, decision: ratified };
  },
});
