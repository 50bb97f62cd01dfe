import type { OutgoingMessage } from '../bus.port';
import type { GroupMember } from './group.member';
import { PartitionWorker } from './partition.worker';
import type { TopicLog } from './topic.log';

export interface GroupBroker {
  topic(name: string): TopicLog;
  publish(topic: string, messages: readonly OutgoingMessage[]): void;
  /** Called after a commit: the broker may drop records every group has committed past. */
  retain(topic: string, partition: number): void;
}

/**
 * A consumer group: its live members, its committed offsets, and one worker (owner) per
 * topic-partition. Partitions are spread round-robin over the members subscribed to the topic,
 * in join order; every join, stop or crash rebalances.
 */
export class ConsumerGroup {
  private readonly members: GroupMember[] = [];
  private readonly committed = new Map<string, number>();
  /** The latest worker per topic-partition: the owner, or the last revoked one still draining. */
  private readonly workers = new Map<string, PartitionWorker>();

  constructor(
    readonly name: string,
    private readonly broker: GroupBroker,
  ) {}

  /** Adds a member. Partitions without a committed offset start at the end, or at 0 with `fromBeginning`. */
  join(member: GroupMember, fromBeginning: boolean): void {
    for (const topic of member.topics) {
      this.broker.topic(topic).partitions.forEach((log, partition) => {
        const key = tpKey(topic, partition);
        if (!this.committed.has(key)) this.committed.set(key, fromBeginning ? log.start : log.end);
      });
    }
    this.members.push(member);
    this.rebalance();
  }

  /** Removes a member; resolves once its in-flight messages were handled and committed. */
  async leave(member: GroupMember): Promise<void> {
    const draining = [...this.workers.values()].filter((w) => w.member === member).map((w) => w.done);
    this.remove(member);
    await Promise.all(draining);
  }

  /** Removes a member as if its process died: its partitions move at once, uncommitted. */
  crash(member: GroupMember): void {
    member.markCrashed();
    this.remove(member);
  }

  /** Every topic-partition the group has an offset on, with the next offset it will read. */
  offsets(): { topic: string; partition: number; next: number }[] {
    return [...this.committed].map(([key, next]) => {
      const [topic, partition] = parseTpKey(key);
      return { topic, partition, next };
    });
  }

  /** The next offset the group will read on a topic-partition (test and diagnostics aid). */
  committedOffset(topic: string, partition: number): number | undefined {
    return this.committed.get(tpKey(topic, partition));
  }

  private remove(member: GroupMember): void {
    const index = this.members.indexOf(member);
    if (index < 0) return;
    this.members.splice(index, 1);
    this.rebalance();
  }

  private rebalance(): void {
    const desired = this.assignment();
    for (const [key, worker] of this.workers) {
      if (!worker.isRevoked && desired.get(key) !== worker.member) worker.revoke();
    }
    for (const [key, member] of desired) {
      const current = this.workers.get(key);
      if (current && !current.isRevoked) continue;
      const [topic, partition] = parseTpKey(key);
      const log = this.broker.topic(topic).partition(partition);
      const worker = new PartitionWorker(
        {
          group: this.name,
          topic,
          partition,
          log,
          member,
          committed: () => this.committed.get(key) ?? 0,
          commit: (next) => {
            this.committed.set(key, next);
            this.broker.retain(topic, partition);
          },
          publish: (target, messages) => this.broker.publish(target, messages),
        },
        current ? current.handover() : Promise.resolve(),
      );
      this.workers.set(key, worker);
    }
  }

  private assignment(): Map<string, GroupMember> {
    const desired = new Map<string, GroupMember>();
    const topics = [...new Set(this.members.flatMap((m) => m.topics))].sort();
    for (const topic of topics) {
      const eligible = this.members.filter((m) => m.topics.includes(topic));
      const count = this.broker.topic(topic).partitions.length;
      for (let partition = 0; partition < count; partition++) {
        const owner = eligible[partition % eligible.length];
        if (owner) desired.set(tpKey(topic, partition), owner);
      }
    }
    return desired;
  }
}

function tpKey(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}

function parseTpKey(key: string): [string, number] {
  const colon = key.indexOf(':');
  return [key.slice(colon + 1), Number(key.slice(0, colon))];
}
