import type { Subscription } from '../bus.port';
import type { ConsumerGroup } from './consumer.group';
import type { GroupMember } from './group.member';

/** A subscription of {@link InProcessBus}; adds a crash simulation for tests. */
export class InProcessSubscription implements Subscription {
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly group: ConsumerGroup,
    private readonly member: GroupMember,
    private readonly onClosed: (subscription: InProcessSubscription) => void,
  ) {}

  /** Leaves the group after the in-flight messages; they are committed, the rest go to the next owner. */
  stop(): Promise<void> {
    this.stopping ??= this.group.leave(this.member).finally(() => this.onClosed(this));
    return this.stopping;
  }

  /**
   * Test hook: simulates `kill -9` of this subscriber. Its partitions move to the group's other
   * members at once; whatever it had not committed (including the message its handler is still
   * working on) is redelivered to them. The abandoned handler keeps running, but its outcome is
   * ignored: it commits nothing and is never retried.
   */
  async crash(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.group.crash(this.member);
    this.stopping = Promise.resolve();
    this.onClosed(this);
  }
}
