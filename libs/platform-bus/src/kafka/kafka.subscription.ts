import { Topics } from '@openwop/contracts';
import { inConsumeSpan } from '@openwop/observability';
import type { Admin, Consumer, EachBatchPayload, EachMessagePayload, Kafka } from 'kafkajs';
import type {
  BatchHandler,
  IncomingMessage,
  OutgoingMessage,
  SubscribeOptions,
  Subscription,
} from '../bus.port';
import { deliverBatch } from '../shared/batch-delivery';
import {
  deliverWithRetries,
  resolveMaxAttempts,
  resolveMaxBatch,
  resolveTransientBudgetMs,
} from '../shared/bounded-retry.policy';
import { sendToDeadLetter } from '../shared/dead-letter.mapper';
import { CONSUMER_TUNING, gatherTuning } from './kafka-bus.options';
import { OffsetCommitter } from './offset-committer';
import { toIncoming, toRawMessage, type RawMessage } from './kafka-message.codec';
import { StartOffsetPinner } from './start-offsets.pin';

export interface KafkaSubscriptionArgs {
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly options: SubscribeOptions;
  readonly concurrency: number;
  readonly joinTimeoutMs: number;
  readonly publish: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>;
  /** Failures retried without counting against `maxAttempts` (see `deliverWithRetries`). */
  readonly isTransient?: (error: unknown) => boolean;
  readonly onClosed: (subscription: KafkaSubscription) => void;
}

/**
 * One kafkajs consumer in `group`. Each message is retried in place and dead-lettered if it still
 * fails; then its offset is resolved. Resolved offsets are committed on an interval, when a
 * heartbeat finds the group rebalancing, and on stop (see {@link OffsetCommitter}); a crash or a
 * lost partition redelivers what was resolved since the last commit, which idempotent handlers
 * absorb. If the dead-letter send (or the subscription's `onDeadLetter`) fails the handler throws:
 * the offset is not resolved and the message comes back.
 */
export class KafkaSubscription implements Subscription {
  private stopping: Promise<void> | undefined;
  private crashError: Error | undefined;
  private draining = false;
  private active = 0;
  private readonly idle: (() => void)[] = [];
  /** Commits resolved offsets every {@link COMMIT_INTERVAL_MS}; none for `commitOffsets: false`. */
  readonly commits: OffsetCommitter | undefined;

  private constructor(
    private readonly consumer: Consumer,
    private readonly onClosed: (subscription: KafkaSubscription) => void,
    group: string,
    commitOffsets: boolean,
  ) {
    this.commits = commitOffsets ? new OffsetCommitter(group) : undefined;
    if (this.commits) {
      const commits = this.commits;
      consumer.on(consumer.events.REBALANCING, () => commits.onRebalancing());
    }
    consumer.on(consumer.events.CRASH, (event) => {
      if (event.payload.restart) return;
      this.crashError = event.payload.error;
      this.failureListener?.(event.payload.error);
    });
  }

  private failureListener: ((error: Error) => void) | undefined;

  /** Calls `listener` once kafkajs gives up on this consumer (it no longer consumes). */
  onFailure(listener: (error: Error) => void): void {
    this.failureListener = listener;
    if (this.crashError) listener(this.crashError);
  }

  /** Set when kafkajs gave up on this consumer (a crash it does not restart from). */
  get failure(): Error | undefined {
    return this.crashError;
  }

  /** Resolves once the consumer joined its group and fetched from its partitions. */
  static async open(args: KafkaSubscriptionArgs): Promise<KafkaSubscription> {
    const { options } = args;
    const maxAttempts = resolveMaxAttempts(options.maxAttempts);
    resolveTransientBudgetMs(options.transientBudgetMs); // validated up front, as maxAttempts is
    const consumer = args.kafka.consumer({
      ...CONSUMER_TUNING,
      ...gatherTuning(options.gatherMs),
      groupId: options.group,
    });
    const subscription = new KafkaSubscription(
      consumer,
      args.onClosed,
      options.group,
      options.commitOffsets !== false,
    );
    const commits = subscription.commits;
    const pinner =
      options.fromBeginning && !commits
        ? undefined
        : new StartOffsetPinner(consumer, args.admin, options.group, {
            pinStart: !options.fromBeginning,
            ...(commits ? { carried: (owned) => commits.carryOver(owned) } : {}),
          });
    const consuming = untilConsuming(consumer, options.group, args.joinTimeoutMs, pinner?.firstPin);
    consuming.promise.catch(() => undefined); // awaited below; this only keeps an early timeout "handled"
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [...options.topics],
        fromBeginning: options.fromBeginning ?? false,
      });
      const batchHandler = options.batchHandler;
      const maxBatch = resolveMaxBatch(options.maxBatch);
      await consumer.run({
        partitionsConsumedConcurrently: args.concurrency,
        // Offsets are committed by `commits` on an interval, not by kafkajs after every batch.
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: (payload: EachBatchPayload) =>
          subscription.track(async () => {
            subscription.commits?.attach(payload);
            const delivery = subscription.delivery(payload);
            if (batchHandler) await handleBatch(delivery, args, batchHandler, maxBatch, maxAttempts);
            else await handleEach(delivery, args, maxAttempts);
          }),
      });
      await consuming.promise;
    } catch (error) {
      consuming.dispose();
      await consumer.disconnect().catch(() => undefined); // the open error below is the one to report
      throw error;
    }
    return subscription;
  }

  /**
   * Finishes the in-flight messages (no new ones start), commits every resolved offset, then leaves
   * the group and disconnects.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.draining = true;
      if (this.active > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
      await this.commits?.close();
      await this.consumer.disconnect();
    })().finally(() => this.onClosed(this));
    return this.stopping;
  }

  /** Runs one fetched batch's handling, counted so `stop` can wait for it. */
  async track(work: () => Promise<void>): Promise<void> {
    this.active += 1;
    try {
      await work();
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /**
   * The batch as the handlers see it: it stops being "running" once `stop` began; a heartbeat that
   * finds the group rebalancing commits what was resolved first, as kafkajs' own autoCommit does,
   * so the partitions' next owner does not get them again.
   */
  delivery(payload: EachBatchPayload): BatchDelivery {
    return {
      batch: payload.batch,
      resolveOffset: (offset) => payload.resolveOffset(offset),
      live: () => !this.draining && payload.isRunning() && !payload.isStale(),
      heartbeat: async () => {
        try {
          await payload.heartbeat();
        } catch (error) {
          await this.commits?.commitNow().catch(() => undefined); // the heartbeat error is the one to raise
          throw error;
        }
      },
    };
  }
}

/** What a batch handler needs of kafkajs' batch payload. */
interface BatchDelivery {
  readonly batch: EachBatchPayload['batch'];
  resolveOffset(offset: string): void;
  /** False once the subscription stops, the consumer stops or the batch went stale. */
  live(): boolean;
  heartbeat(): Promise<void>;
}

/** A fetched batch of one partition, message by message, each offset resolved once it is settled. */
async function handleEach(
  payload: BatchDelivery,
  args: KafkaSubscriptionArgs,
  maxAttempts: number,
): Promise<void> {
  const { batch } = payload;
  for (const message of batch.messages) {
    if (!payload.live()) return;
    const settled = await handle(
      { topic: batch.topic, partition: batch.partition, message, heartbeat: () => payload.heartbeat() },
      args,
      maxAttempts,
      () => payload.live(),
    );
    if (!settled) return;
    payload.resolveOffset(message.offset);
  }
  await payload.heartbeat();
}

/**
 * A fetched batch of one partition, in slices of at most `maxBatch`: each slice goes to the batch
 * handler at once (or, if it throws or holds a message that is not JSON, message by message through
 * {@link handle}); offsets are resolved as slices settle, so a stop or rebalance between slices
 * commits what was done. A slice is not started once the consumer stopped or the batch went stale.
 */
async function handleBatch(
  payload: BatchDelivery,
  args: KafkaSubscriptionArgs,
  batchHandler: BatchHandler,
  maxBatch: number,
  maxAttempts: number,
): Promise<void> {
  const { batch } = payload;
  for (let from = 0; from < batch.messages.length; from += maxBatch) {
    if (!payload.live()) return;
    const slice = batch.messages.slice(from, from + maxBatch);
    const settled = await deliverBatch({
      messages: slice,
      batch: async (messages) => {
        const incoming = messages.map((m) => toIncoming(toRawMessage(batch.topic, batch.partition, m), 1));
        const span = {
          system: 'kafka',
          topic: batch.topic,
          partition: batch.partition,
          group: args.options.group,
          headers: incoming[0]!.headers,
        } as const;
        await inConsumeSpan(span, () => batchHandler(incoming));
      },
      one: (message) =>
        handle(
          { topic: batch.topic, partition: batch.partition, message, heartbeat: () => payload.heartbeat() },
          args,
          maxAttempts,
          () => payload.live(),
        ),
    });
    if (settled > 0) payload.resolveOffset(slice[settled - 1]!.offset);
    await payload.heartbeat();
  }
}

/**
 * One message with its retries, dead-lettered if they are used up; true once it is settled. False
 * only for a subscription that waits out outages without bound (`transientBudgetMs: Infinity`)
 * whose consumer stopped or lost the partition during the wait: the message stays unresolved, for
 * the next owner.
 */
async function handle(
  payload: Pick<EachMessagePayload, 'topic' | 'partition' | 'message' | 'heartbeat'>,
  args: KafkaSubscriptionArgs,
  maxAttempts: number,
  live: () => boolean,
): Promise<boolean> {
  const deadLetterTopic = args.options.deadLetterTopic ?? Topics.deadLetter;
  const raw = toRawMessage(payload.topic, payload.partition, payload.message);
  let undecodable: unknown;
  // The copy decoded to find out whether the value is JSON is the first attempt's: the value is
  // parsed once per delivery, not twice. Later attempts (and a dead letter) get fresh copies.
  let first: IncomingMessage | undefined;
  try {
    first = toIncoming(raw, 1);
  } catch (error) {
    undecodable = error;
  }
  const deadLetter = {
    publish: args.publish,
    deadLetterTopic,
    group: args.options.group,
    onDeadLetter: args.options.onDeadLetter,
  };
  if (undecodable !== undefined) {
    // Not JSON: retrying cannot help. Dead-letter the text as it came (a request is answered).
    await sendToDeadLetter({
      ...deadLetter,
      message: asText(raw),
      cause: 'undecodable',
      error: undecodable,
      attempts: 0,
    });
    return true;
  }
  const message = (attempt: number): IncomingMessage => {
    const decoded = attempt === 1 ? first : undefined;
    first = undefined;
    return decoded ?? toIncoming(raw, attempt);
  };
  const span = {
    system: 'kafka',
    topic: raw.topic,
    partition: raw.partition,
    group: args.options.group,
    headers: raw.headers,
  } as const;
  const budgetMs = args.options.transientBudgetMs;
  return inConsumeSpan(span, async () => {
    const outcome = await deliverWithRetries({
      handler: args.options.handler,
      message,
      maxAttempts,
      beforeRetry: () => payload.heartbeat(),
      ...(args.isTransient ? { isTransient: args.isTransient } : {}),
      ...(budgetMs === undefined ? {} : { transientBudgetMs: budgetMs }),
      // A bounded wait ends on its own; an unbounded one ends when the consumer stops owning the partition.
      ...(budgetMs === Infinity ? { alive: live } : {}),
    });
    if (outcome.kind === 'exhausted') {
      await sendToDeadLetter({
        ...deadLetter,
        message: message(outcome.attempts),
        cause: 'exhausted',
        error: outcome.error,
        attempts: outcome.attempts,
      });
    }
    return outcome.kind !== 'abandoned';
  });
}

function asText(raw: RawMessage): IncomingMessage {
  const { text, ...rest } = raw;
  return { ...rest, value: text, attempt: 0 };
}

/**
 * Resolves after the consumer's first fetch following its first join (and, without
 * `fromBeginning`, its first start-offset pin): by then the start offset of every partition it
 * owns is fixed, so what is published afterwards reaches it.
 */
function untilConsuming(consumer: Consumer, group: string, timeoutMs: number, pinned?: Promise<void>) {
  const removers: (() => void)[] = [];
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const dispose = () => {
    done = true;
    clearTimeout(timer);
    for (const remove of removers.splice(0)) remove();
  };
  const promise = new Promise<void>((resolve, reject) => {
    let joined = false;
    let pinDone = pinned === undefined;
    const settle = (error?: Error) => {
      if (done) return;
      dispose();
      if (error) reject(error);
      else resolve();
    };
    timer = setTimeout(
      () => settle(new Error(`consumer of group ${group} did not join and fetch within ${timeoutMs} ms`)),
      timeoutMs,
    );
    pinned?.then(
      () => (pinDone = true),
      (error: Error) => settle(error),
    );
    removers.push(
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        joined = true;
        const owned = Object.values(event.payload.memberAssignment).some(
          (partitions) => partitions.length > 0,
        );
        if (!owned) settle(); // nothing to fetch: this member is a standby
      }),
      consumer.on(consumer.events.FETCH, () => {
        if (joined && pinDone) settle();
      }),
      consumer.on(consumer.events.CRASH, (event) => {
        settle(
          new Error(`consumer of group ${group} crashed while joining: ${event.payload.error.message}`, {
            cause: event.payload.error,
          }),
        );
      }),
    );
  });
  return { promise, dispose };
}
