import { answersMap } from '../interrupt-events';
import { defineNode } from '../node';

/** `core.clarificationGate`: asks `config.questions`; outputs `{answers}` keyed by question id. */
export const clarificationGateNode = defineNode({
  typeId: 'core.clarificationGate',
  async execute(ctx) {
    const resume = await ctx.interrupt({
      kind: 'clarification',
      ...(typeof ctx.config.timeoutMs === 'number' ? { timeoutMs: ctx.config.timeoutMs } : {}),
      data: {
        questions: ctx.config.questions,
        ...(typeof ctx.config.contextType === 'string' ? { contextType: ctx.config.contextType } : {}),
      },
    });
    return { answers: answersMap(resume) };
  },
});
