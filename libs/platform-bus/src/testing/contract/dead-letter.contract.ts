import { Headers, Topics } from '@openwop/contracts';
import { expect, it } from '@jest/globals';
import type { ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

const MAX_ATTEMPTS = 3;

/** Bounded retries in place, then the dead-letter topic; the partition moves on. */
export function deadLetterContract(ctx: ContractContext): void {
  it(
    `retries a failing message ${MAX_ATTEMPTS} times in place, dead-letters it, then handles the next one`,
    async () => {
      const topic = uniqueName('dlq');
      const dead = new MessageRecorder();
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('dlq-watch'),
          topics: [Topics.deadLetter],
          handler: dead.handler('dlq'),
        }),
      );
      const attempts: number[] = [];
      const good = new MessageRecorder();
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('dlq-g'),
          topics: [topic],
          fromBeginning: true,
          maxAttempts: MAX_ATTEMPTS,
          handler: good.handler('good', async (message) => {
            if ((message.value as { poison?: boolean }).poison) {
              attempts.push(message.attempt);
              throw new Error('poison message rejected');
            }
          }),
        }),
      );

      const key = 'run-dlq';
      await ctx.bus().publish(topic, [
        { key, value: { poison: true, n: 1 }, headers: { 'x-test': 'kept' } },
        { key, value: { poison: false, n: 2 } },
      ]);

      await waitFor(() => good.count === 1, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'the next message',
      });
      expect(attempts).toEqual([1, 2, 3]);
      const mine = () => dead.by('dlq').filter((m) => m.headers[Headers.deadLetterTopic] === topic);
      await waitFor(() => mine().length === 1, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'the dead letter',
      });
      const [letter] = mine();
      expect(letter).toMatchObject({
        key,
        value: { poison: true, n: 1 },
        headers: {
          'x-test': 'kept',
          [Headers.deadLetterTopic]: topic,
          [Headers.attempts]: String(MAX_ATTEMPTS),
        },
      });
      expect(letter?.headers[Headers.deadLetterReason]).toContain('poison message rejected');
      expect(good.by('good')[0]?.value).toEqual({ poison: false, n: 2 });
      expect(attempts).toHaveLength(MAX_ATTEMPTS); // still exactly maxAttempts calls
    },
    ctx.testTimeoutMs,
  );
}
