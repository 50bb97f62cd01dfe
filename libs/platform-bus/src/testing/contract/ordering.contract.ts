import { expect, it } from '@jest/globals';
import { keys, seqOf, type ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

const KEYS = 16;
const PER_KEY = 30;

/** Per-key order: each key's messages reach the group's handler in publish order. */
export function orderingContract(ctx: ContractContext): void {
  it(
    'delivers each key in publish order across interleaved publishes',
    async () => {
      const topic = uniqueName('order');
      const recorder = new MessageRecorder();
      // A random short pause in the handler shakes the timing between partitions.
      const jitter = () => new Promise<void>((resolve) => setTimeout(resolve, Math.random() < 0.2 ? 2 : 0));
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('order-g'),
          topics: [topic],
          fromBeginning: true,
          handler: recorder.handler('only', jitter),
        }),
      );
      const all = keys('key', KEYS);
      for (let seq = 0; seq < PER_KEY; seq++) {
        const round = all.map((key) => ({ key, value: { key, seq } }));
        if (seq % 2 === 0) {
          await ctx.bus().publish(topic, round); // one batch holding every key
        } else {
          await Promise.all(round.map((m) => ctx.bus().publish(topic, [m]))); // concurrent, one per key
        }
      }

      await waitFor(() => recorder.count >= KEYS * PER_KEY, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: () => `${KEYS * PER_KEY} messages (got ${recorder.count})`,
      });
      const sequences = new Map<string, number[]>();
      for (const { message } of recorder.handled) {
        sequences.set(message.key, [...(sequences.get(message.key) ?? []), seqOf(message.value)]);
      }
      const expected = Array.from({ length: PER_KEY }, (_, i) => i);
      for (const key of all) expect({ key, seqs: sequences.get(key) }).toEqual({ key, seqs: expected });
    },
    ctx.testTimeoutMs,
  );
}
