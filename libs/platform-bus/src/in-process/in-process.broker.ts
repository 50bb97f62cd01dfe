import { assertBusMessageSize } from '@openwop/contracts';
import { withTraceHeaders } from '@openwop/observability';
import type { OutgoingMessage } from '../bus.port';
import { isReplyTopic } from '../shared/consumer-lag';
import { copyHeaders, encodeJson } from '../shared/json.codec';
import { ConsumerGroup } from './consumer.group';
import type { StoredRecord } from './partition.log';
import { partitionOf } from './stable-hash.util';
import { TopicLog } from './topic.log';

export interface InProcessBrokerOptions {
  /** Partitions per topic (default 8). */
  readonly partitions?: number;
}

/**
 * The in-memory "cluster" behind {@link InProcessBus}: topics and consumer groups. Several bus
 * instances may share one broker to act as several processes of one deployment.
 * Retention: a record is dropped once every consumer group that reads its partition committed past it.
 */
export class InProcessBroker {
  readonly partitions: number;
  private readonly topics = new Map<string, TopicLog>();
  private readonly groups = new Map<string, ConsumerGroup>();

  constructor(options: InProcessBrokerOptions = {}) {
    const partitions = options.partitions ?? 8;
    if (!Number.isInteger(partitions) || partitions < 1) {
      throw new RangeError(`partitions must be an integer >= 1, got ${partitions}`);
    }
    this.partitions = partitions;
  }

  /** The topic's log, created on first use. */
  topic(name: string): TopicLog {
    let log = this.topics.get(name);
    if (!log) {
      log = new TopicLog(name, this.partitions);
      this.topics.set(name, log);
    }
    return log;
  }

  /** The consumer group, created on first use. */
  group(name: string): ConsumerGroup {
    let group = this.groups.get(name);
    if (!group) {
      group = new ConsumerGroup(name, this);
      this.groups.set(name, group);
    }
    return group;
  }

  /** Per group and topic-partition, the records appended and not yet committed (reply groups left out). */
  lag(): { group: string; topic: string; partition: number; lag: number }[] {
    const samples: { group: string; topic: string; partition: number; lag: number }[] = [];
    for (const group of this.groups.values()) {
      for (const { topic, partition, next } of group.offsets()) {
        if (isReplyTopic(topic)) continue;
        const end = this.topic(topic).partition(partition).end;
        samples.push({ group: group.name, topic, partition, lag: Math.max(0, end - next) });
      }
    }
    return samples;
  }

  /**
   * How many messages of `topic` with `key` some consumer group has not settled yet (queued, or
   * being handled: a group commits a message's offset only after its handler resolved), leaving out
   * the record at `except` (the message whose handler asks). 0 when no group reads the topic.
   */
  unsettled(
    topic: string,
    key: string,
    except?: { readonly partition: number; readonly offset: number },
  ): number {
    const log = this.topics.get(topic);
    if (!log) return 0;
    const partition = partitionOf(key, log.partitions.length);
    let lowest = Number.POSITIVE_INFINITY;
    for (const group of this.groups.values()) {
      const offset = group.committedOffset(topic, partition);
      if (offset !== undefined) lowest = Math.min(lowest, offset);
    }
    if (!Number.isFinite(lowest)) return 0;
    const records = log.partition(partition);
    let n = 0;
    for (let offset = Math.max(lowest, records.start); offset < records.end; offset++) {
      if (except && except.partition === partition && except.offset === offset) continue;
      if (records.at(offset)?.key === key) n++;
    }
    return n;
  }

  /** Drops the partition's records below the lowest offset any group committed on it. */
  retain(topic: string, partition: number): void {
    let lowest = Number.POSITIVE_INFINITY;
    for (const group of this.groups.values()) {
      const offset = group.committedOffset(topic, partition);
      if (offset !== undefined) lowest = Math.min(lowest, offset);
    }
    if (Number.isFinite(lowest)) this.topic(topic).partition(partition).trimBefore(lowest);
  }

  /**
   * Appends copies of the messages in order; all or nothing (every value is encoded first). Headers
   * gain the active W3C trace context unless they carry one, as on Kafka. A message past the bus's
   * size bound is refused as Kafka would ({@link MessageTooLargeError}), so both modes agree.
   */
  publish(topic: string, messages: readonly OutgoingMessage[]): void {
    const records: StoredRecord[] = messages.map((m) => {
      if (typeof m.key !== 'string') throw new TypeError(`message key must be a string on ${topic}`);
      const record = {
        key: m.key,
        value: encodeJson(m.value),
        headers: Object.freeze(copyHeaders(withTraceHeaders(m.headers))),
      };
      assertBusMessageSize(topic, record.key, record.value, record.headers);
      return record;
    });
    const log = this.topic(topic);
    for (const record of records) log.append(record);
  }
}
