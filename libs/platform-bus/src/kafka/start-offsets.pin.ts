import type { Admin, Consumer, IMemberAssignment, TopicPartitionOffset } from 'kafkajs';
import { retryTransient } from './transient-retry';

/** Errors that only mean "a newer rebalance superseded this one": the next join pins again. */
const SUPERSEDED = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'NOT_COORDINATOR',
]);

export interface JoinWork {
  /** Pin the start of partitions the group has no offset for (subscriptions without `fromBeginning`). */
  readonly pinStart: boolean;
  /**
   * Offsets this member handled in the generation before and could not commit then, for the
   * partitions it owns again (see `OffsetCommitter.carryOver`): committed before it fetches, so a
   * rebalance does not hand it back what it already handled.
   */
  readonly carried?: (owned: readonly { topic: string; partitions: number[] }[]) => TopicPartitionOffset[];
}

/**
 * What a member does on every join before it fetches: it pauses its partitions, commits what it
 * carried over from the generation before, pins start offsets, and resumes them.
 *
 * Pinning makes "start at the end" a property of the group, not of one member (subscriptions
 * without `fromBeginning`). Kafka's `latest` is resolved in memory by whichever member first
 * fetches a partition and is committed only once a message there was handled; a partition that
 * moves to another member before that (a stop, a crash, a scale-out) would silently skip what was
 * published in between. So the member commits the current end of those the group has no offset for.
 */
export class StartOffsetPinner {
  /** Settles after the first join's pin: resolved, or rejected when it failed for good. */
  readonly firstPin: Promise<void>;
  private generation = 0;
  private settleFirst: (error?: Error) => void = () => undefined;

  constructor(
    private readonly consumer: Consumer,
    private readonly admin: Admin,
    private readonly group: string,
    private readonly work: JoinWork = { pinStart: true },
  ) {
    this.firstPin = new Promise<void>((resolve, reject) => {
      this.settleFirst = (error) => (error ? reject(error) : resolve());
    });
    this.firstPin.catch(() => undefined); // awaited by the subscription; keeps an early failure handled
    consumer.on(consumer.events.GROUP_JOIN, (event) => this.onJoin(event.payload.memberAssignment));
  }

  private onJoin(assignment: IMemberAssignment): void {
    const generation = ++this.generation;
    const owned = Object.entries(assignment)
      .map(([topic, partitions]) => ({ topic, partitions }))
      .filter((tp) => tp.partitions.length > 0);
    if (owned.length === 0) {
      this.settleFirst();
      return;
    }
    this.consumer.pause(owned); // synchronous: the runner has not fetched for this generation yet
    this.pin(owned).then(
      () => {
        this.resumeIfCurrent(generation, owned);
        this.settleFirst();
      },
      (error: unknown) => {
        this.resumeIfCurrent(generation, owned);
        if (isSuperseded(error)) return;
        // Fall back to kafkajs's own `latest`; the group keeps consuming.
        this.consumer
          .logger()
          .error('could not pin start offsets', { groupId: this.group, error: String(error) });
        this.settleFirst(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  private async pin(owned: readonly { topic: string; partitions: number[] }[]): Promise<void> {
    const carried = this.work.carried?.(owned) ?? [];
    // If this fails, the member gets those messages again: its handlers are idempotent.
    if (carried.length > 0) await this.consumer.commitOffsets(carried).catch(() => undefined);
    if (!this.work.pinStart) return;
    // Offsets of a fresh group or topic meet a loading coordinator or a leader not yet elected.
    const committed = await retryTransient(() =>
      this.admin.fetchOffsets({ groupId: this.group, topics: owned.map((tp) => tp.topic) }),
    );
    for (const { topic, partitions } of owned) {
      const unset = (committed.find((c) => c.topic === topic)?.partitions ?? [])
        .filter((p) => partitions.includes(p.partition) && Number(p.offset) < 0)
        .map((p) => p.partition);
      if (unset.length === 0) continue;
      const offsets = await retryTransient(() => this.admin.fetchTopicOffsets(topic));
      const ends = new Map(offsets.map((o) => [o.partition, o.high]));
      await this.consumer.commitOffsets(
        unset.map((partition) => ({ topic, partition, offset: ends.get(partition) ?? '0' })),
      );
    }
  }

  private resumeIfCurrent(generation: number, owned: { topic: string; partitions: number[] }[]): void {
    // A newer join paused its own assignment and will resume it when its pin is done.
    if (generation !== this.generation) return;
    try {
      this.consumer.resume(owned);
    } catch {
      // The consumer stopped (or its open failed and is being retried) while pinning: nothing to resume.
    }
  }
}

function isSuperseded(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && SUPERSEDED.has(type)) return true;
  }
  return false;
}
