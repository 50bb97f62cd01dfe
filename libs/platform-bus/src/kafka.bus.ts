import { retryTransient } from './kafka/transient-retry';
import { randomUUID } from 'node:crypto';
import { assertBusMessageSize, busMessageBytes, groupsWithinBytes } from '@openwop/contracts';
import { Kafka, logLevel, Partitioners, type Admin, type Message, type Producer } from 'kafkajs';
import type {
  Bus,
  OutgoingMessage,
  RequestOptions,
  ServeOptions,
  SubscribeOptions,
  Subscription,
} from './bus.port';
import {
  BrokerUnreachableError,
  isConnectionFailure,
  publishFailure,
} from './kafka/broker-unreachable.error';
import {
  CLIENT_RETRY,
  CONNECTION_TIMEOUT_MS,
  DEFAULT_JOIN_TIMEOUT_MS,
  HEALTH_TIMEOUT_MS,
  type KafkaBusOptions,
} from './kafka/kafka-bus.options';
import { ConsumerLagSampler, DEFAULT_LAG_SAMPLE_MS } from './kafka/consumer-lag.sampler';
import { kafkaLogCreator } from './kafka/kafka-log.creator';
import { toKafkaMessage } from './kafka/kafka-message.codec';
import { KafkaTopicRegistry } from './kafka/kafka-topics.registry';
import { ProduceCoalescer, type TopicMessages } from './kafka/produce-coalescer';
import { KafkaSubscription } from './kafka/kafka.subscription';
import { patchKafkajsRequestQueue } from './kafka/request-queue.patch';
import { seedDeadLetterSeries } from './shared/consumer-lag';
import { ReplyChannel, servingSubscription } from './shared/request-reply.channel';

/**
 * The production bus, on kafkajs. One producer (acks=all, one request in flight, so retries never
 * reorder a partition; publishes made while a request is in flight leave together in the next
 * one, see {@link ProduceCoalescer}); one consumer per subscription; topics created on first
 * use; request/reply over a per-instance reply topic. Guarantees: see {@link Bus}.
 *
 * @example
 * const bus = new KafkaBus({ brokers: brokersFromEnv(), clientId: 'engine' });
 * await bus.start(); // throws BrokerUnreachableError when no broker answers
 */
export class KafkaBus implements Bus {
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly produce: ProduceCoalescer<Message>;
  private readonly admin: Admin;
  private readonly topics: KafkaTopicRegistry;
  private readonly replies: ReplyChannel;
  private readonly lag: ConsumerLagSampler;
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly partitions: number;
  private starting: Promise<void> | undefined;
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: KafkaBusOptions) {
    if (options.brokers.length === 0) throw new RangeError('KafkaBus needs at least one broker');
    // kafkajs 2.2.4 otherwise runs a 1 ms timer on every broker connection, idle or not.
    patchKafkajsRequestQueue();
    this.partitions = options.partitions ?? 8;
    this.kafka = new Kafka({
      brokers: [...options.brokers],
      clientId: options.clientId ?? 'openwop',
      logLevel: options.logLevel ?? logLevel.WARN,
      logCreator: kafkaLogCreator,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      retry: CLIENT_RETRY,
    });
    this.producer = this.kafka.producer({
      // Not idempotent: kafkajs rolls back the sequence numbers of every partition of a failed
      // request, including partitions the broker had appended, so the next, different batch to such
      // a partition can carry an already-used sequence range and be acknowledged as a duplicate
      // without being written. The fault run caught it: one run event missing from the log, the
      // ones after it present. Without idempotence a retry can write a message twice, which every
      // consumer absorbs (dedupe by event or command id); one request in flight keeps the order.
      idempotent: false,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    // One request per group of messages within the broker's record batch bound, in order: a backlog
    // (the outbox relay's 500 rows, many publishes coalesced) never makes one request the broker refuses.
    this.produce = new ProduceCoalescer(async (topicMessages) => {
      for (const group of requestsWithinBytes(topicMessages)) {
        await this.producer.sendBatch({
          acks: -1,
          topicMessages: group.map((t) => ({ topic: t.topic, messages: [...t.messages] })),
        });
      }
    });
    this.admin = this.kafka.admin();
    this.topics = new KafkaTopicRegistry(this.admin, this.partitions, options.replicationFactor ?? 1);
    this.lag = new ConsumerLagSampler(this.admin, options.lagSampleMs ?? DEFAULT_LAG_SAMPLE_MS);
    // Setting up the reply subscription sends nothing: whatever fails there (a broker restarting
    // answers topic creation and joins with errors) is "unavailable, retry later", never a 500.
    const unreachable = (error: unknown): never => {
      throw error instanceof BrokerUnreachableError
        ? error
        : new BrokerUnreachableError(options.brokers, error);
    };
    this.replies = new ReplyChannel({
      instanceId: options.instanceId ?? randomUUID(),
      subscribe: (o) => this.subscribe(o).catch(unreachable),
      publish: (topic, messages) => this.publish(topic, messages),
      prepareReplyTopic: (topic) => this.topics.ensure([topic], 1).catch(unreachable),
    });
  }

  /** Connects the admin client and the producer; idempotent. @throws BrokerUnreachableError */
  start(): Promise<void> {
    this.starting ??= this.connect();
    return this.starting;
  }

  /** Stops every subscription (they finish and commit their in-flight messages), then disconnects. */
  stop(): Promise<void> {
    if (!this.starting) return Promise.resolve();
    this.stopping ??= this.disconnect().finally(() => {
      this.starting = undefined;
      this.started = false;
      this.stopping = undefined;
      this.topics.clear();
    });
    return this.stopping;
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.assertStarted('publish');
    if (messages.length === 0) return;
    const encoded = messages.map(toKafkaMessage);
    for (const m of encoded)
      assertBusMessageSize(topic, m.key as string, m.value as string, m.headers as Record<string, string>);
    try {
      await this.topics.ensure([topic]);
      await this.produce.publish(topic, encoded);
    } catch (error) {
      // A broker restart surfaces as a closed connection or a leaderless partition: the caller
      // should see "unreachable, retry later" (the gateway's 503), not an unknown failure (500).
      throw publishFailure(this.options.brokers, error);
    }
  }

  /**
   * Joins `group` and resolves once the consumer fetched: a message published after that reaches
   * the group. Without `fromBeginning`, a new group starts at the end of each partition, pinned
   * (committed) when a member first gets it, so no later owner skips anything (`StartOffsetPinner`).
   */
  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertStarted('subscribe');
    if (options.topics.length === 0) throw new RangeError('subscribe needs at least one topic');
    await this.topics.ensure(options.topics);
    // A fresh broker answers "coordinator is loading" (and a moving leader "not the leader") for a
    // while: join again rather than fail the service's start.
    const open = async (): Promise<KafkaSubscription> => {
      const opened = await retryTransient(() =>
        KafkaSubscription.open({
          kafka: this.kafka,
          admin: this.admin,
          options,
          concurrency: this.options.partitionsConsumedConcurrently ?? this.partitions,
          joinTimeoutMs: this.options.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS,
          publish: (topic, messages) => this.publish(topic, messages),
          isTransient: (error) =>
            error instanceof BrokerUnreachableError || (this.options.isTransientFailure?.(error) ?? false),
          onClosed: (s) => this.subscriptions.delete(s),
        }),
      );
      this.subscriptions.add(opened);
      return opened;
    };
    const subscription = new RejoiningSubscription(await open(), open, options.group);
    this.lag.track(options.group, options.topics);
    seedDeadLetterSeries(options.group, options.topics);
    return subscription;
  }

  async serve(options: ServeOptions): Promise<Subscription> {
    return this.subscribe(servingSubscription(options, (topic, messages) => this.publish(topic, messages)));
  }

  async request<TReply = unknown>(
    topic: string,
    message: OutgoingMessage,
    options: RequestOptions,
  ): Promise<TReply> {
    this.assertStarted('request');
    return this.replies.request<TReply>(topic, message, options);
  }

  /** The broker answered `describeCluster` within 2 s, and no subscription died for good. */
  async healthy(): Promise<boolean> {
    if (!this.started) return false;
    if ([...this.subscriptions].some((s) => s.failure !== undefined)) return false;
    const described = this.admin.describeCluster().then(() => true);
    const timedOut = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS).unref(),
    );
    return Promise.race([described, timedOut]).catch(() => false);
  }

  private async disconnect(): Promise<void> {
    await this.starting?.catch(() => undefined); // a failed start left nothing connected
    // Handlers still draining may publish (replies, dead letters): the producer stays up until they are done.
    const stopped = await Promise.allSettled([
      this.replies.close('bus stopped'),
      ...[...this.subscriptions].map((s) => s.stop()),
    ]);
    this.started = false;
    await this.lag.stop();
    await this.producer.disconnect();
    await this.admin.disconnect();
    const failed = stopped.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async connect(): Promise<void> {
    try {
      await this.admin.connect();
      // Connecting also meets a coordinator or metadata that is still loading after a broker restart.
      await retryTransient(() => this.producer.connect());
      this.started = true;
      this.lag.start();
    } catch (error) {
      this.starting = undefined;
      await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect()]);
      throw isConnectionFailure(error) ? new BrokerUnreachableError(this.options.brokers, error) : error;
    }
  }

  /** Publishing stays possible while `stop()` drains handlers; new subscriptions and requests do not. */
  private assertStarted(operation: 'publish' | 'subscribe' | 'request'): void {
    if (!this.started) throw new Error(`KafkaBus.${operation}: the bus is not started (call start() first)`);
    if (this.stopping && operation !== 'publish')
      throw new Error(`KafkaBus.${operation}: the bus is stopping`);
  }
}

/** Pause before the n-th attempt to join again (1 s, 2 s, 4 s, … capped at 15 s). */
const rejoinDelayMs = (attempt: number): number => Math.min(15_000, 1_000 * 2 ** attempt);

/**
 * A subscription that joins its group again when kafkajs gives up on the consumer (a crash it does
 * not restart from, e.g. a coordinator still loading after a broker restart), instead of leaving a
 * live process that consumes nothing. Attempts go on, with backoff, until one joins or `stop()`.
 */
class RejoiningSubscription implements Subscription {
  private stopped = false;
  private rejoining: Promise<void> | undefined;

  constructor(
    private current: KafkaSubscription,
    private readonly open: () => Promise<KafkaSubscription>,
    private readonly group: string,
  ) {
    this.watch(current);
  }

  private watch(subscription: KafkaSubscription): void {
    this.current = subscription;
    subscription.onFailure((error) => this.rejoin(error));
  }

  private rejoin(error: Error): void {
    if (this.stopped || this.rejoining) return;
    console.error(`consumer of group ${this.group} stopped consuming (${error.message}); joining again`);
    this.rejoining = (async () => {
      await this.current.stop().catch(() => undefined);
      for (let attempt = 0; !this.stopped; attempt++) {
        await new Promise((r) => setTimeout(r, rejoinDelayMs(attempt)));
        if (this.stopped) return;
        try {
          const next = await this.open();
          if (this.stopped) {
            await next.stop();
            return;
          }
          this.rejoining = undefined;
          this.watch(next);
          console.error(`consumer of group ${this.group} joined again`);
          return;
        } catch (e) {
          console.error(
            `consumer of group ${this.group} could not join again: ${e instanceof Error ? e.message : String(e)}`,
          );
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.rejoining?.catch(() => undefined);
    await this.current.stop();
  }
}

/**
 * The topics' messages as consecutive requests of at most the bus's message bound (`MAX_BUS_MESSAGE_BYTES`) each, order
 * kept (a message alone over it, which `publish` refuses first, would be a request of its own).
 */
function requestsWithinBytes(batch: readonly TopicMessages<Message>[]): TopicMessages<Message>[][] {
  const flat = batch.flatMap((t) => t.messages.map((message) => ({ topic: t.topic, message })));
  const size = ({ message: m }: { message: Message }) =>
    busMessageBytes(m.key as string, m.value as string, m.headers as Record<string, string>);
  return groupsWithinBytes(flat, size).map((group) => {
    const byTopic: TopicMessages<Message>[] = [];
    for (const { topic, message } of group) {
      const last = byTopic[byTopic.length - 1];
      if (last?.topic === topic) (last.messages as Message[]).push(message);
      else byTopic.push({ topic, messages: [message] });
    }
    return byTopic;
  });
}
