import { defineNode } from '../node';

/**
 * `core.conversationGate`, minimal (RFC 0005 "accept and route"): one `conversation.exchange`
 * turn on the conversation `${runId}:${nodeId}:0`, completing with the answer as `outcome`.
 * Opening/closing events and multi-party rosters (RFC 0101) are not implemented yet.
 */
export const conversationGateNode = defineNode({
  typeId: 'core.conversationGate',
  async execute(ctx) {
    const prompt =
      [ctx.config.prompt, ctx.config.title, ctx.node.name].find((p) => typeof p === 'string' && p !== '') ??
      'Your turn';
    const outcome = await ctx.interrupt({
      kind: 'conversation.exchange',
      ...(typeof ctx.config.timeoutMs === 'number' ? { timeoutMs: ctx.config.timeoutMs } : {}),
      data: {
        conversationId: `${ctx.runId}:${ctx.nodeId}:0`,
        prompt,
        ...(typeof ctx.config.outcomeSchema === 'object' && ctx.config.outcomeSchema !== null
          ? { outcomeSchema: ctx.config.outcomeSchema }
          : {}),
      },
    });
    return { outcome };
  },
});
