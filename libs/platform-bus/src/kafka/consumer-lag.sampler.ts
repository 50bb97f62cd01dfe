import type { Admin } from 'kafkajs';
import { metricsEnabled, observeConsumerLag, type LagSample } from '@openwop/observability';
import { isReplyTopic } from '../shared/consumer-lag';

/** Default period of the lag reading (`KAFKA_LAG_SAMPLE_MS`). */
export const DEFAULT_LAG_SAMPLE_MS = 15_000;

/**
 * Reads, every `periodMs`, each consumer group's committed offsets against the partitions' high
 * watermarks (Kafka admin API) and reports the difference as `openwop.bus.consumer_lag` at the
 * next scrape. Only the groups this process consumes in, never reply groups. Does nothing when
 * metrics are off. A failed reading keeps the previous one (the broker may be failing over).
 */
export class ConsumerLagSampler {
  private readonly groups = new Map<string, readonly string[]>();
  private latest: readonly LagSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private unobserve: (() => void) | undefined;
  private sampling: Promise<unknown> | undefined;

  constructor(
    private readonly admin: Admin,
    private readonly periodMs: number,
  ) {}

  track(group: string, topics: readonly string[]): void {
    const wanted = topics.filter((t) => !isReplyTopic(t));
    if (wanted.length === 0) return;
    this.groups.set(group, [...new Set([...(this.groups.get(group) ?? []), ...wanted])]);
  }

  start(): void {
    if (this.timer || !metricsEnabled()) return;
    this.unobserve = observeConsumerLag(() => this.latest);
    this.timer = setInterval(() => {
      this.sampling ??= this.sample().finally(() => (this.sampling = undefined));
    }, this.periodMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unobserve?.();
    this.unobserve = undefined;
    await this.sampling;
  }

  /** One reading of every tracked group (exposed for tests). */
  async sample(): Promise<readonly LagSample[]> {
    try {
      const samples: LagSample[] = [];
      const topics = [...new Set([...this.groups.values()].flat())];
      const marks = new Map<string, { high: number; low: number }>();
      for (const topic of topics) {
        for (const p of await this.admin.fetchTopicOffsets(topic))
          marks.set(`${topic}:${p.partition}`, { high: Number(p.high), low: Number(p.low) });
      }
      for (const [group, groupTopics] of this.groups) {
        for (const t of await this.admin.fetchOffsets({ groupId: group, topics: [...groupTopics] })) {
          for (const p of t.partitions) {
            const mark = marks.get(`${t.topic}:${p.partition}`);
            if (mark === undefined) continue;
            const committed = Number(p.offset);
            // No commit yet (-1): everything the partition still holds is to be read.
            const lag = committed < 0 ? mark.high - mark.low : mark.high - committed;
            samples.push({ group, topic: t.topic, partition: p.partition, lag: Math.max(0, lag) });
          }
        }
      }
      this.latest = samples;
    } catch {
      // Keep the previous reading; the next period tries again.
    }
    return this.latest;
  }
}
