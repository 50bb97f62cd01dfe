import type { Admin } from 'kafkajs';

/**
 * Creates topics idempotently on first use (`createTopics` is a no-op for an existing topic)
 * and remembers which exist, so later publishes and subscriptions skip the round trip.
 */
export class KafkaTopicRegistry {
  private readonly known = new Map<string, Promise<void>>();

  constructor(
    private readonly admin: Admin,
    private readonly defaultPartitions: number,
    private readonly replicationFactor: number,
  ) {}

  async ensure(topics: readonly string[], partitions = this.defaultPartitions): Promise<void> {
    await Promise.all(topics.map((topic) => this.ensureOne(topic, partitions)));
  }

  /** Forgets every topic (after a reconnect to a possibly different cluster). */
  clear(): void {
    this.known.clear();
  }

  private ensureOne(topic: string, partitions: number): Promise<void> {
    let created = this.known.get(topic);
    if (!created) {
      created = this.create(topic, partitions);
      this.known.set(topic, created);
      const attempt = created;
      attempt.catch(() => {
        if (this.known.get(topic) === attempt) this.known.delete(topic);
      });
    }
    return created;
  }

  private async create(topic: string, partitions: number): Promise<void> {
    // Looking first keeps kafkajs from logging TOPIC_ALREADY_EXISTS as an error; a concurrent
    // creator elsewhere is still fine (createTopics then reports "exists" and returns false).
    if (!(await this.admin.listTopics()).includes(topic)) {
      // Not kafkajs's `waitForLeaders`: it tolerates only LEADER_NOT_AVAILABLE, but a broker that has
      // not applied the new topic yet answers UNKNOWN_TOPIC_OR_PARTITION, which failed the whole call.
      await this.admin.createTopics({
        topics: [{ topic, numPartitions: partitions, replicationFactor: this.replicationFactor }],
        waitForLeaders: false,
      });
    }
    // A topic just created (here or by another process) can be listed, or even unknown, before its
    // partitions have leaders; metadata requests for it then fail with "does not host this
    // topic-partition". Wait for the leaders, tolerating both.
    await this.waitForLeaders(topic);
  }

  private async waitForLeaders(topic: string): Promise<void> {
    const deadline = Date.now() + LEADER_WAIT_MS;
    let delay = 20;
    for (;;) {
      try {
        const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
        const parts = topics[0]?.partitions ?? [];
        if (parts.length > 0 && parts.every((p) => p.leader >= 0)) return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline)
        throw new Error(`topic ${topic} has no leader for every partition after ${LEADER_WAIT_MS} ms`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 500);
    }
  }
}

/** How long a topic's partitions may take to get leaders before we give up. */
const LEADER_WAIT_MS = 15_000;
