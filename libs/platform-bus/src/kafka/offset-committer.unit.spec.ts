import type { OffsetsByTopicPartition } from 'kafkajs';
import { OffsetCommitter } from './offset-committer';

/** Stands in for kafkajs' batch payload: resolved offsets, and a commit that records what it sent. */
function fakeSource() {
  const resolved = new Map<string, string>(); // "topic/partition" → next offset
  const committed = new Map<string, string>();
  const sent: OffsetsByTopicPartition[] = [];
  let fail: Error | undefined;
  const uncommittedOffsets = (): OffsetsByTopicPartition => {
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const [key, offset] of resolved) {
      if (committed.get(key) === offset) continue;
      const [topic, partition] = key.split('/');
      const list = byTopic.get(topic!) ?? [];
      list.push({ partition: Number(partition), offset });
      byTopic.set(topic!, list);
    }
    return { topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) };
  };
  const commitOffsetsIfNecessary = async (offsets?: OffsetsByTopicPartition) => {
    if (!offsets) throw new Error('the committer always passes explicit offsets');
    if (fail) throw fail;
    sent.push(offsets);
    for (const { topic, partitions } of offsets.topics)
      for (const { partition, offset } of partitions) committed.set(`${topic}/${partition}`, offset);
  };
  return {
    source: { uncommittedOffsets, commitOffsetsIfNecessary },
    resolve: (topic: string, partition: number, next: number) =>
      resolved.set(`${topic}/${partition}`, String(next)),
    sent,
    failWith: (e: Error | undefined) => (fail = e),
  };
}

describe('OffsetCommitter', () => {
  it('commits nothing until something is resolved, then only what changed', async () => {
    const f = fakeSource();
    const c = new OffsetCommitter('g', 60_000, () => undefined);
    c.attach(f.source);
    await c.commitNow();
    expect(f.sent).toEqual([]);
    f.resolve('t', 0, 5);
    f.resolve('t', 1, 2);
    await c.commitNow();
    f.resolve('t', 1, 3);
    await c.commitNow();
    await c.commitNow();
    expect(f.sent).toEqual([
      {
        topics: [
          {
            topic: 't',
            partitions: [
              { partition: 0, offset: '5' },
              { partition: 1, offset: '2' },
            ],
          },
        ],
      },
      { topics: [{ topic: 't', partitions: [{ partition: 1, offset: '3' }] }] },
    ]);
    await c.close();
  });

  it('commits on its interval without being asked', async () => {
    const f = fakeSource();
    const c = new OffsetCommitter('g', 20, () => undefined);
    c.attach(f.source);
    f.resolve('t', 0, 7);
    const deadline = Date.now() + 5_000;
    while (f.sent.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(f.sent).toEqual([{ topics: [{ topic: 't', partitions: [{ partition: 0, offset: '7' }] }] }]);
    await c.close();
  });

  it('commits what is left on close, and reports a failing commit once until one succeeds', async () => {
    const f = fakeSource();
    const reports: string[] = [];
    const c = new OffsetCommitter('g', 60_000, (m) => reports.push(m));
    c.attach(f.source);
    f.resolve('t', 0, 1);
    f.failWith(new Error('coordinator moved'));
    await expect(c.commitNow()).rejects.toThrow('coordinator moved');
    await expect(c.commitNow()).rejects.toThrow('coordinator moved');
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('consumer group g: committing offsets failed (coordinator moved)');
    f.failWith(undefined);
    f.resolve('t', 0, 4);
    await c.close();
    expect(f.sent).toEqual([{ topics: [{ topic: 't', partitions: [{ partition: 0, offset: '4' }] }] }]);
  });

  it('carries what a rebalance interrupted over to the partitions it owns again, and only those', async () => {
    const f = fakeSource();
    const c = new OffsetCommitter('g', 60_000, () => undefined);
    c.attach(f.source);
    f.resolve('a', 0, 10);
    f.resolve('a', 1, 11);
    f.resolve('b', 3, 12);
    f.failWith(new Error('REBALANCE_IN_PROGRESS')); // the old generation's commit loses the race
    c.onRebalancing();
    await c.commitNow().catch(() => undefined);
    expect(
      c.carryOver([
        { topic: 'a', partitions: [1, 2] },
        { topic: 'b', partitions: [3] },
      ]),
    ).toEqual([
      { topic: 'a', partition: 1, offset: '11' },
      { topic: 'b', partition: 3, offset: '12' },
    ]);
    expect(c.carryOver([{ topic: 'a', partitions: [1] }])).toEqual([]); // taken once
    await c.close();
  });
});
