import { defineNode } from '../node';
import { waitingOnPeople } from './waiting-on-people';

/**
 * `core.custom`: a `custom` interrupt of `config.customKind` carrying `config.payload` (else the
 * node's inputs), with its approvers and escalation policy when the config names them (ADR 0034, 0035).
 */
export const customNode = defineNode({
  typeId: 'core.custom',
  async execute(ctx) {
    const resume = await ctx.interrupt({
      kind: 'custom',
      ...(typeof ctx.config.timeoutMs === 'number' ? { timeoutMs: ctx.config.timeoutMs } : {}),
      ...(isObject(ctx.config.resumeSchema) ? { resumeSchema: ctx.config.resumeSchema } : {}),
      data: { customKind: ctx.config.customKind, payload: ctx.config.payload ?? ctx.inputs },
      hostData: waitingOnPeople(ctx.config),
    });
    return isObject(resume) ? resume : { value: resume };
  },
});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
