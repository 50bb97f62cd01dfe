import { expect, it } from '@jest/globals';
import { seqOf, type ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

/** At-least-once: what a crashed subscriber had not committed goes to the group's next owner. */
export function redeliveryContract(ctx: ContractContext): void {
  it(
    'redelivers to the next owner what a crashed subscriber had not committed, and only that',
    async () => {
      const topic = uniqueName('crash');
      const group = uniqueName('crash-g');
      const key = 'run-1'; // one key: one partition, so order tells what was committed
      const victim = await ctx.options.startCrashableConsumer({ bus: ctx.bus(), group, topic });
      try {
        await ctx.bus().publish(topic, [{ key, value: { seq: 1 } }]);
        await waitFor(() => victim.handled.length === 1, {
          timeoutMs: ctx.options.deliveryTimeoutMs,
          what: 'the victim handling seq 1',
        });
        await ctx.bus().publish(topic, [
          { key, value: { seq: 2, block: true } },
          { key, value: { seq: 3 } },
        ]);
        await waitFor(() => victim.blockedOn !== undefined, {
          timeoutMs: ctx.options.deliveryTimeoutMs,
          what: 'the victim blocking inside its handler on seq 2',
        });
      } finally {
        await victim.kill();
      }

      const heir = new MessageRecorder();
      ctx.track(
        await ctx
          .bus()
          .subscribe({ group, topics: [topic], fromBeginning: true, handler: heir.handler('heir') }),
      );
      await waitFor(() => heir.count >= 2, {
        timeoutMs: ctx.options.crashRecoveryTimeoutMs,
        what: () => `seq 2 and 3 at the next owner (got ${heir.count})`,
      });
      expect(victim.handled.map(seqOf)).toEqual([1]);
      expect(seqOf(victim.blockedOn)).toBe(2);
      // seq 1 was committed before the crash: not redelivered. seq 2 was in flight: redelivered, first.
      expect(heir.by('heir').map((m) => seqOf(m.value))).toEqual([2, 3]);
    },
    ctx.testTimeoutMs,
  );
}
