import { randomUUID } from 'node:crypto';
import { Topics } from '@openwop/contracts';
import { observeConsumerLag } from '@openwop/observability';
import {
  MAX_GATHER_MS,
  type Bus,
  type OutgoingMessage,
  type RequestOptions,
  type ServeOptions,
  type SubscribeOptions,
  type Subscription,
} from './bus.port';
import { GroupMember } from './in-process/group.member';
import { InProcessBroker } from './in-process/in-process.broker';
import { InProcessSubscription } from './in-process/in-process.subscription';
import { resolveMaxAttempts, resolveMaxBatch, resolveTransientBudgetMs } from './shared/bounded-retry.policy';
import { seedDeadLetterSeries } from './shared/consumer-lag';
import { ReplyChannel, servingSubscription } from './shared/request-reply.channel';

export interface InProcessBusOptions {
  /** Partitions per topic of a private broker (default 8). Ignored when `broker` is given. */
  readonly partitions?: number;
  /** A broker shared with other buses, to act as several processes of one deployment. */
  readonly broker?: InProcessBroker;
  /** Names this instance's reply topic (default: a random UUID). */
  readonly instanceId?: string;
  /** Handler failures retried without using up `maxAttempts` (see `KafkaBusOptions.isTransientFailure`). */
  readonly isTransientFailure?: (error: unknown) => boolean;
}

/**
 * The bus for embedded mode and unit tests, with the guarantees of {@link Bus} in one process:
 * N partitions per topic chosen by a stable hash of the key; per consumer group one owner per
 * partition among the live subscribers (round-robin, rebalanced on join, stop and crash);
 * sequential delivery per partition; offsets committed after the handler resolved; bounded
 * in-place retries, then `Topics.deadLetter`. Delivery is asynchronous (never inside
 * `publish`), and values are JSON copies. Nothing is persisted: the log lives as long as the broker.
 */
export class InProcessBus implements Bus {
  readonly broker: InProcessBroker;
  private readonly subscriptions = new Set<InProcessSubscription>();
  private readonly replies: ReplyChannel;
  private started = false;
  private stopping: Promise<void> | undefined;
  private nextMemberId = 1;
  private unobserveLag: (() => void) | undefined;

  private readonly isTransient: ((error: unknown) => boolean) | undefined;

  constructor(options: InProcessBusOptions = {}) {
    this.isTransient = options.isTransientFailure;
    this.broker = options.broker ?? new InProcessBroker({ partitions: options.partitions });
    this.replies = new ReplyChannel({
      instanceId: options.instanceId ?? randomUUID(),
      subscribe: (o) => this.subscribe(o),
      publish: (topic, messages) => this.publish(topic, messages),
    });
  }

  /** Also reports the broker's consumer lag (its queue depth per group) when metrics are on. */
  async start(): Promise<void> {
    this.started = true;
    this.unobserveLag ??= observeConsumerLag(() => this.broker.lag());
  }

  /** Stops every subscription (they finish and commit their in-flight messages). */
  stop(): Promise<void> {
    if (!this.started) return Promise.resolve();
    this.stopping ??= this.drain().finally(() => {
      this.unobserveLag?.();
      this.unobserveLag = undefined;
      this.started = false;
      this.stopping = undefined;
    });
    return this.stopping;
  }

  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.assertStarted('publish');
    this.broker.publish(topic, messages);
  }

  /** Joins the group; messages published after this resolves reach the group. */
  async subscribe(options: SubscribeOptions): Promise<InProcessSubscription> {
    this.assertStarted('subscribe');
    if (options.topics.length === 0) throw new RangeError('subscribe needs at least one topic');
    const member = new GroupMember(
      this.nextMemberId++,
      [...new Set(options.topics)],
      options.handler,
      resolveMaxAttempts(options.maxAttempts),
      options.deadLetterTopic ?? Topics.deadLetter,
      options.batchHandler
        ? { handler: options.batchHandler, max: resolveMaxBatch(options.maxBatch) }
        : undefined,
      this.isTransient,
      options.onDeadLetter,
      options.transientBudgetMs === undefined
        ? undefined
        : resolveTransientBudgetMs(options.transientBudgetMs),
      options.gatherMs !== undefined && options.gatherMs > 0
        ? Math.min(options.gatherMs, MAX_GATHER_MS)
        : undefined,
    );
    const group = this.broker.group(options.group);
    const subscription = new InProcessSubscription(group, member, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(subscription);
    group.join(member, options.fromBeginning ?? false);
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

  async healthy(): Promise<boolean> {
    return this.started;
  }

  private async drain(): Promise<void> {
    await this.replies.close('bus stopped');
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
  }

  private assertStarted(operation: string): void {
    if (!this.started)
      throw new Error(`InProcessBus.${operation}: the bus is not started (call start() first)`);
  }
}
