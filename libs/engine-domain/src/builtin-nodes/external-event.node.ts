import { defineNode } from '../node';

/** `core.externalEvent`: waits for `config.eventType`, correlated by `config.correlation`; outputs the event payload. */
export const externalEventNode = defineNode({
  typeId: 'core.externalEvent',
  async execute(ctx) {
    const resume = await ctx.interrupt<{ eventPayload?: unknown } | null>({
      kind: 'external-event',
      ...(typeof ctx.config.timeoutMs === 'number' ? { timeoutMs: ctx.config.timeoutMs } : {}),
      data: {
        eventType: ctx.config.eventType,
        correlation: ctx.config.correlation ?? { runId: ctx.runId, nodeId: ctx.nodeId },
      },
    });
    return { eventPayload: resume?.eventPayload ?? resume };
  },
});
