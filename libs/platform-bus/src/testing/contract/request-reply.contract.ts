import { expect, it } from '@jest/globals';
import { RequestTimeoutError } from '../../bus.port';
import type { ContractContext } from './contract.context';
import { uniqueName } from '../unique-name.util';

/** Request/reply between two instances, and a timeout when nobody serves. */
export function requestReplyContract(ctx: ContractContext): void {
  it(
    'returns what the serving handler returned, to the right requester',
    async () => {
      const topic = uniqueName('rpc');
      ctx.track(
        await ctx.peer().serve({
          group: uniqueName('rpc-g'),
          topic,
          handler: async (message) => ({ echo: message.value, key: message.key }),
        }),
      );
      const replies = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          ctx
            .bus()
            .request(topic, { key: `run-${n}`, value: { n } }, { timeoutMs: ctx.options.deliveryTimeoutMs }),
        ),
      );
      expect(replies).toEqual([1, 2, 3, 4, 5].map((n) => ({ echo: { n }, key: `run-${n}` })));
    },
    ctx.testTimeoutMs,
  );

  it(
    'rejects with RequestTimeoutError when nobody serves the topic',
    async () => {
      const topic = uniqueName('rpc-nobody');
      const startedAt = Date.now();
      const outcome = await ctx
        .bus()
        .request(topic, { key: 'run-x', value: {} }, { timeoutMs: 300 })
        .then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
      expect(outcome).toEqual({ error: expect.any(RequestTimeoutError) });
      const error = (outcome as { error: RequestTimeoutError }).error;
      expect({ topic: error.topic, timeoutMs: error.timeoutMs }).toEqual({ topic, timeoutMs: 300 });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    },
    ctx.testTimeoutMs,
  );
}
