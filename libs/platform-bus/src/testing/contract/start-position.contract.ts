import { expect, it } from '@jest/globals';
import type { ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

/** A new group starts at the end of the topic, or at its beginning with `fromBeginning`. */
export function startPositionContract(ctx: ContractContext): void {
  it(
    'starts a new group at the end unless fromBeginning',
    async () => {
      const topic = uniqueName('start');
      await ctx.bus().publish(topic, [{ key: 'k', value: 'old' }]);
      const recorder = new MessageRecorder();
      for (const fromBeginning of [false, true]) {
        ctx.track(
          await ctx.bus().subscribe({
            group: uniqueName('start-g'),
            topics: [topic],
            fromBeginning,
            handler: recorder.handler(fromBeginning ? 'beginning' : 'end'),
          }),
        );
      }
      await ctx.bus().publish(topic, [{ key: 'k', value: 'new' }]);
      await waitFor(() => recorder.by('end').length >= 1 && recorder.by('beginning').length >= 2, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'both groups to get the new message',
      });
      expect(recorder.by('end').map((m) => m.value)).toEqual(['new']);
      expect(recorder.by('beginning').map((m) => m.value)).toEqual(['old', 'new']);
    },
    ctx.testTimeoutMs,
  );
}
