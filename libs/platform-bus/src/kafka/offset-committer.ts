import type { EachBatchPayload, TopicPartitionOffset } from 'kafkajs';

/**
 * How often a subscription commits the offsets it resolved. kafkajs' autoCommit commits after every
 * fetched batch (even with `autoCommitInterval` set), which under load is one OffsetCommit request
 * per message or two: a third of the broker's requests in a HITL cycle. Committing on an interval
 * instead costs, on a crash or a lost partition, the redelivery of what was handled since the last
 * commit; every consumer here is idempotent (dedupe by command or event id), so that costs time,
 * not correctness.
 */
export const COMMIT_INTERVAL_MS = 500;

type CommitSource = Pick<EachBatchPayload, 'commitOffsetsIfNecessary' | 'uncommittedOffsets'>;

/**
 * Commits a consumer's resolved offsets every `intervalMs`, on demand and on close. It commits
 * through the most recent batch payload's functions, which act on the consumer group's current
 * generation, so a commit after a rebalance carries only what this member resolved since.
 * Commits never overlap. A failed commit is reported once until one succeeds again; the offsets
 * stay resolved, so the next tick retries them.
 */
export class OffsetCommitter {
  private source: CommitSource | undefined;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failing = false;
  private closed = false;
  /** Resolved in the generation a rebalance ended and maybe not committed: `topic` → partition → offset. */
  private carried = new Map<string, Map<number, string>>();

  constructor(
    private readonly group: string,
    private readonly intervalMs: number = COMMIT_INTERVAL_MS,
    private readonly report: (message: string) => void = (m) => console.error(m),
  ) {}

  /** The payload of the batch being handled: the one commits go through from now on. */
  attach(source: CommitSource): void {
    this.source = source;
    if (!this.timer && !this.closed) {
      this.timer = setInterval(() => void this.commitNow().catch(() => undefined), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Commits what is resolved and not yet committed (nothing is sent when that is nothing). */
  commitNow(): Promise<void> {
    const next = this.chain.then(() => this.commitOnce());
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * The group began rebalancing (kafkajs is about to join again, which drops what this member
   * resolved and did not commit): keep those offsets for {@link carryOver}, and try to commit them
   * while the old generation still accepts commits.
   */
  onRebalancing(): void {
    const offsets = this.source?.uncommittedOffsets().topics ?? [];
    for (const { topic, partitions } of offsets) {
      const byPartition = this.carried.get(topic) ?? new Map<number, string>();
      for (const { partition, offset } of partitions) byPartition.set(partition, offset);
      this.carried.set(topic, byPartition);
    }
    void this.commitNow().catch(() => undefined);
  }

  /**
   * After a join: the carried offsets of the partitions this member owns again, to commit before
   * it fetches (nobody else handled them during the rebalance). Carried offsets of partitions that
   * moved elsewhere are dropped: their new owner may be further along already.
   */
  carryOver(owned: readonly { topic: string; partitions: readonly number[] }[]): TopicPartitionOffset[] {
    const out: TopicPartitionOffset[] = [];
    for (const { topic, partitions } of owned) {
      const byPartition = this.carried.get(topic);
      for (const partition of partitions) {
        const offset = byPartition?.get(partition);
        if (offset !== undefined) out.push({ topic, partition, offset });
      }
    }
    this.carried = new Map();
    return out;
  }

  /** Stops the interval and commits what is left. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.commitNow().catch(() => undefined); // reported by commitOnce; the redelivery is safe
  }

  private async commitOnce(): Promise<void> {
    const source = this.source;
    if (!source) return;
    const offsets = source.uncommittedOffsets();
    if (offsets.topics.length === 0) return;
    try {
      await source.commitOffsetsIfNecessary(offsets);
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        this.failing = true;
        this.report(
          `consumer group ${this.group}: committing offsets failed (${error instanceof Error ? error.message : String(error)}); ` +
            'retrying every interval, and what is not committed is delivered again after a restart',
        );
      }
      throw error;
    }
  }
}
