import { answersMap } from '../interrupt-events';
import { defineNode } from '../node';
import { waitingOnPeople } from './waiting-on-people';

/**
 * `core.clarificationGate`: asks `config.questions`; outputs `{answers}` keyed by question id. Its
 * approvers (`approversList`, `approverPolicy`) and escalation policy ride along (ADR 0034, 0035).
 */
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
      hostData: waitingOnPeople(ctx.config),
    });
    return { answers: answersMap(resume) };
  },
});
