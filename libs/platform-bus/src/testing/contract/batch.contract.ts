import { Headers, Topics } from '@openwop/contracts';
import { expect, it } from '@jest/globals';
import type { IncomingMessage } from '../../bus.port';
import { seqOf, type ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

/**
 * A subscription with a batch handler: messages already waiting in a partition arrive together, in
 * order; a batch that throws is handed to the per-message handler one message at a time, so only
 * the bad message is retried and dead-lettered and the others are handled once each.
 */
export function batchContract(ctx: ContractContext): void {
  it(
    'hands waiting messages of a partition to the batch handler together, in publish order',
    async () => {
      const topic = uniqueName('batch');
      const batches: number[][] = [];
      const singles: number[] = [];
      const key = 'run-batch';
      const count = 30;
      // Published before the group joins (fromBeginning): all of them wait in one partition.
      await ctx.bus().publish(
        topic,
        Array.from({ length: count }, (_, seq) => ({ key, value: { seq } })),
      );
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('batch-g'),
          topics: [topic],
          fromBeginning: true,
          maxBatch: 8,
          handler: async (m) => {
            singles.push(seqOf(m.value));
          },
          batchHandler: async (ms) => {
            batches.push(ms.map((m) => seqOf(m.value)));
          },
        }),
      );
      await waitFor(() => batches.flat().length === count, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: `${count} messages through the batch handler`,
      });
      expect(singles).toEqual([]);
      expect(batches.flat()).toEqual(Array.from({ length: count }, (_, i) => i));
      expect(batches.some((b) => b.length > 1)).toBe(true);
      expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(8);
    },
    ctx.testTimeoutMs,
  );

  it(
    'falls back to one message at a time when a batch throws: the poison one is dead-lettered, the others handled once',
    async () => {
      const topic = uniqueName('batch-poison');
      const dead = new MessageRecorder();
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('batch-dlq-watch'),
          topics: [Topics.deadLetter],
          handler: dead.handler('dlq'),
        }),
      );
      const key = 'run-batch-poison';
      await ctx.bus().publish(topic, [
        { key, value: { seq: 0 } },
        { key, value: { seq: 1, poison: true } },
        { key, value: { seq: 2 } },
      ]);
      const handled: number[] = [];
      const batchCalls: number[][] = [];
      const isPoison = (m: IncomingMessage) => (m.value as { poison?: boolean }).poison === true;
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('batch-poison-g'),
          topics: [topic],
          fromBeginning: true,
          maxAttempts: 2,
          handler: async (m) => {
            if (isPoison(m)) throw new Error('poison in a batch');
            handled.push(seqOf(m.value));
          },
          batchHandler: async (ms) => {
            batchCalls.push(ms.map((m) => seqOf(m.value)));
            if (ms.some(isPoison)) throw new Error('poison in a batch');
            handled.push(...ms.map((m) => seqOf(m.value)));
          },
        }),
      );
      const mine = () => dead.by('dlq').filter((m) => m.headers[Headers.deadLetterTopic] === topic);
      await waitFor(() => handled.includes(2) && mine().length === 1, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'the good messages handled and the poison one dead-lettered',
      });
      expect(handled).toEqual([0, 2]);
      expect(batchCalls.some((b) => b.includes(1))).toBe(true);
      expect(mine()[0]).toMatchObject({ key, value: { seq: 1, poison: true } });
    },
    ctx.testTimeoutMs,
  );
}
