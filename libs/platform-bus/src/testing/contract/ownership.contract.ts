import { expect, it } from '@jest/globals';
import type { Bus } from '../../bus.port';
import { keys, seqOf, type ContractContext } from './contract.context';
import { MessageRecorder } from '../message.recorder';
import { uniqueName } from '../unique-name.util';
import { waitFor } from '../wait-for.util';

const KEYS = 40;
const PER_KEY = 5;

/** One owner per key within a group; every group gets everything; a stopped member hands over. */
export function ownershipContract(ctx: ContractContext): void {
  it(
    'splits a group between its live subscribers, one owner per key, and gives every group everything',
    async () => {
      const topic = uniqueName('owner');
      const group = uniqueName('owner-g');
      const recorder = new MessageRecorder();
      const other = new MessageRecorder();
      const subscribe = (bus: Bus, by: string) =>
        bus.subscribe({ group, topics: [topic], fromBeginning: true, handler: recorder.handler(by) });
      const a = ctx.track(await subscribe(ctx.bus(), 'a'));
      ctx.track(await subscribe(ctx.peer(), 'b'));
      ctx.track(
        await ctx.bus().subscribe({
          group: uniqueName('owner-other'),
          topics: [topic],
          fromBeginning: true,
          handler: other.handler('other'),
        }),
      );

      await publishRounds(ctx.bus(), topic, 0, PER_KEY);
      await waitFor(() => recorder.count >= KEYS * PER_KEY && other.count >= KEYS * PER_KEY, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: () => `${KEYS * PER_KEY} messages in both groups (got ${recorder.count} and ${other.count})`,
      });
      expect(duplicates(recorder)).toEqual([]);
      expect(recorder.count).toBe(KEYS * PER_KEY);
      expect(other.count).toBe(KEYS * PER_KEY);
      const owners = ownersByKey(recorder);
      const shared = [...owners].filter(([, by]) => by.size > 1).map(([key]) => key);
      expect(shared).toEqual([]);
      const keysOf = (by: string) => [...owners].filter(([, owner]) => owner.has(by)).length;
      expect(keysOf('a')).toBeGreaterThan(0);
      expect(keysOf('b')).toBeGreaterThan(0);

      // a stops: b owns every key from now on, and nothing handled before is handled again.
      await a.stop();
      await publishRounds(ctx.bus(), topic, PER_KEY, 2 * PER_KEY);
      await waitFor(() => recorder.count >= 2 * KEYS * PER_KEY, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: () => `${2 * KEYS * PER_KEY} messages after a stopped (got ${recorder.count})`,
      });
      const late = recorder.handled.filter((r) => seqOf(r.message.value) >= PER_KEY);
      expect(late.every((r) => r.by === 'b')).toBe(true);
      expect(duplicates(recorder)).toEqual([]);
    },
    ctx.testTimeoutMs,
  );

  it(
    'hands partitions nothing was committed on to the next owner without skipping messages',
    async () => {
      // A new group starting at the end (no fromBeginning): the start position must hold for
      // the group, not only for the member that happened to fetch a partition first.
      const topic = uniqueName('idle');
      const group = uniqueName('idle-g');
      const recorder = new MessageRecorder();
      const a = ctx.track(
        await ctx.bus().subscribe({ group, topics: [topic], handler: recorder.handler('a') }),
      );
      ctx.track(await ctx.peer().subscribe({ group, topics: [topic], handler: recorder.handler('b') }));
      await a.stop();
      await publishRounds(ctx.bus(), topic, 0, 1);
      await waitFor(() => recorder.count >= KEYS, {
        timeoutMs: ctx.options.deliveryTimeoutMs,
        what: () => `${KEYS} messages at the remaining member (got ${recorder.count})`,
      });
      expect(
        recorder
          .by('b')
          .map((m) => m.key)
          .sort(),
      ).toEqual(keys('key', KEYS).sort());
      expect(recorder.by('a')).toEqual([]);
    },
    ctx.testTimeoutMs,
  );
}

async function publishRounds(bus: Bus, topic: string, from: number, to: number): Promise<void> {
  for (let seq = from; seq < to; seq++) {
    await bus.publish(
      topic,
      keys('key', KEYS).map((key) => ({ key, value: { key, seq } })),
    );
  }
}

function duplicates(recorder: MessageRecorder): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const { message } of recorder.handled) {
    const id = `${message.key}#${seqOf(message.value)}`;
    if (seen.has(id)) twice.push(id);
    seen.add(id);
  }
  return twice;
}

function ownersByKey(recorder: MessageRecorder): Map<string, Set<string>> {
  const owners = new Map<string, Set<string>>();
  for (const { by, message } of recorder.handled) {
    owners.set(message.key, (owners.get(message.key) ?? new Set()).add(by));
  }
  return owners;
}
