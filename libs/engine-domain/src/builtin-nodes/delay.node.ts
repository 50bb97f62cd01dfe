import { defineNode } from '../node';

/**
 * `core.delay`: waits `delayMs` (config, else input; absent means 0) on a durable timer, then
 * completes with no outputs. The run shows `running` while it waits. A value that is not an integer
 * from 0 to `MAX_DELAY_MS` fails the node with `validation_error` (registration already refuses
 * such a `config.delayMs`).
 */
export const delayNode = defineNode({
  typeId: 'core.delay',
  async execute(ctx) {
    const delayMs = ctx.config.delayMs ?? ctx.inputs.delayMs ?? 0;
    await ctx.sleep(delayMs as number);
    return {};
  },
});
