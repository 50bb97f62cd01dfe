import { defineNode, NodeError } from '../node';

/**
 * `core.delay`: waits `delayMs` (config, else input). Durable timers are not part of this host yet,
 * so only `delayMs: 0` completes; registration refuses a non-zero `config.delayMs`, and a non-zero
 * input fails the node with `capability_not_provided` instead of blocking a consumer.
 */
export const delayNode = defineNode({
  typeId: 'core.delay',
  async execute(ctx) {
    const delayMs = ctx.config.delayMs ?? ctx.inputs.delayMs ?? 0;
    if (delayMs !== 0) {
      throw new NodeError(
        'capability_not_provided',
        'core.delay: durable timers are not supported by this host (delayMs must be 0)',
        {
          delayMs,
        },
      );
    }
    return {};
  },
});
