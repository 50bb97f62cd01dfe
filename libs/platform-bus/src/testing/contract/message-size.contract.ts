import { expect, it } from '@jest/globals';
import { MAX_BUS_MESSAGE_BYTES, MessageTooLargeError } from '@openwop/contracts';
import { seqOf, type ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

/** Messages of ~3 KB of one key in one publish: ~1.5 MB, past Kafka's default 1 MiB record batch. */
const BACKLOG = 500;
const FILLER = 'x'.repeat(3_000);

/**
 * The size bound: a backlog larger than one record batch still goes out, in order (the outbox
 * relay publishes 500 rows of one partition at once); one message past the bus's bound is refused
 * with {@link MessageTooLargeError} by every adapter, and nothing of its publish is delivered.
 */
export function messageSizeContract(ctx: ContractContext): void {
  it(
    `delivers, in order, one publish of ${BACKLOG} messages of one key larger together than a record batch`,
    async () => {
      const topic = uniqueName('size');
      const recorder = new MessageRecorder();
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('size-g'),
          topics: [topic],
          fromBeginning: true,
          handler: recorder.handler('only'),
        }),
      );
      await ctx.bus().publish(
        topic,
        Array.from({ length: BACKLOG }, (_, seq) => ({ key: 'one-run', value: { seq, filler: FILLER } })),
      );
      await waitFor(() => recorder.count >= BACKLOG, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: () => `${BACKLOG} messages (got ${recorder.count})`,
      });
      expect(recorder.handled.map(({ message }) => seqOf(message.value))).toEqual(
        Array.from({ length: BACKLOG }, (_, i) => i),
      );
    },
    ctx.testTimeoutMs,
  );

  it(
    'refuses a message past the bound with MessageTooLargeError, delivering nothing of that publish',
    async () => {
      const topic = uniqueName('size-big');
      const recorder = new MessageRecorder();
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('size-big-g'),
          topics: [topic],
          fromBeginning: true,
          handler: recorder.handler('only'),
        }),
      );
      const huge = { seq: 1, filler: 'y'.repeat(MAX_BUS_MESSAGE_BYTES) };
      await expect(
        ctx.bus().publish(topic, [
          { key: 'k', value: { seq: 0 } },
          { key: 'k', value: huge },
        ]),
      ).rejects.toThrow(MessageTooLargeError);
      // The bus still carries what fits, and the refused publish left nothing behind it.
      await ctx.bus().publish(topic, [{ key: 'k', value: { seq: 2 } }]);
      await waitFor(() => recorder.count >= 1, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: 'the message after the refused publish',
      });
      expect(recorder.handled.map(({ message }) => seqOf(message.value))).toEqual([2]);
    },
    ctx.testTimeoutMs,
  );
}
