import { Topics } from '@openwop/contracts';
import { countDeadLetter, inConsumeSpan } from '@openwop/observability';
import type { Admin, Consumer, EachBatchPayload, EachMessagePayload, Kafka } from 'kafkajs';
import type { BatchHandler, IncomingMessage, OutgoingMessage, SubscribeOptions, Subscription } from '../bus.port';
import { deliverBatch } from '../shared/batch-delivery';
import { deliverWithRetries, resolveMaxAttempts, resolveMaxBatch } from '../shared/bounded-retry.policy';
import { deadLetterOf } from '../shared/dead-letter.mapper';
import { CONSUMER_TUNING } from './kafka-bus.options';
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
 * One kafkajs consumer in `group`. `eachMessage` retries in place, dead-letters what still
 * fails, then returns, so kafkajs resolves the offset; autoCommit commits resolved offsets only
 * (at the end of each batch, on rebalance and on stop). If the dead-letter send fails the
 * handler throws: the offset is not resolved and the message comes back.
 */
export class KafkaSubscription implements Subscription {
  private stopping: Promise<void> | undefined;
  private crashError: Error | undefined;

  private constructor(
    private readonly consumer: Consumer,
    private readonly onClosed: (subscription: KafkaSubscription) => void,
  ) {
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
    const consumer = args.kafka.consumer({ ...CONSUMER_TUNING, groupId: options.group });
    const subscription = new KafkaSubscription(consumer, args.onClosed);
    const pinner = options.fromBeginning
      ? undefined
      : new StartOffsetPinner(consumer, args.admin, options.group);
    const consuming = untilConsuming(consumer, options.group, args.joinTimeoutMs, pinner?.firstPin);
    consuming.promise.catch(() => undefined); // awaited below; this only keeps an early timeout "handled"
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [...options.topics],
        fromBeginning: options.fromBeginning ?? false,
      });
      const batchHandler = options.batchHandler;
      await consumer.run({
        partitionsConsumedConcurrently: args.concurrency,
        autoCommit: options.commitOffsets !== false,
        ...(batchHandler
          ? {
              eachBatchAutoResolve: false,
              eachBatch: (payload: EachBatchPayload) =>
                handleBatch(payload, args, batchHandler, resolveMaxBatch(options.maxBatch), maxAttempts),
            }
          : { eachMessage: (payload: EachMessagePayload) => handle(payload, args, maxAttempts) }),
      });
      await consuming.promise;
    } catch (error) {
      consuming.dispose();
      await consumer.disconnect().catch(() => undefined); // the open error below is the one to report
      throw error;
    }
    return subscription;
  }

  /** Finishes the in-flight messages, commits them, leaves the group and disconnects. */
  stop(): Promise<void> {
    this.stopping ??= this.consumer.disconnect().finally(() => this.onClosed(this));
    return this.stopping;
  }
}

/**
 * A fetched batch of one partition, in slices of at most `maxBatch`: each slice goes to the batch
 * handler at once (or, if it throws or holds a message that is not JSON, message by message through
 * {@link handle}); offsets are resolved as slices settle, so a stop or rebalance between slices
 * commits what was done. A slice is not started once the consumer stopped or the batch went stale.
 */
async function handleBatch(
  payload: EachBatchPayload,
  args: KafkaSubscriptionArgs,
  batchHandler: BatchHandler,
  maxBatch: number,
  maxAttempts: number,
): Promise<void> {
  const { batch } = payload;
  for (let from = 0; from < batch.messages.length; from += maxBatch) {
    if (!payload.isRunning() || payload.isStale()) return;
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
      one: async (message) => {
        await handle(
          { topic: batch.topic, partition: batch.partition, message, heartbeat: () => payload.heartbeat() },
          args,
          maxAttempts,
        );
        return true;
      },
    });
    if (settled > 0) payload.resolveOffset(slice[settled - 1]!.offset);
    await payload.heartbeat();
  }
}

async function handle(
  payload: Pick<EachMessagePayload, 'topic' | 'partition' | 'message' | 'heartbeat'>,
  args: KafkaSubscriptionArgs,
  maxAttempts: number,
): Promise<void> {
  const deadLetterTopic = args.options.deadLetterTopic ?? Topics.deadLetter;
  const raw = toRawMessage(payload.topic, payload.partition, payload.message);
  let undecodable: unknown;
  try {
    toIncoming(raw, 1);
  } catch (error) {
    undecodable = error;
  }
  if (undecodable !== undefined) {
    // Not JSON: retrying cannot help. Dead-letter the text as it came.
    await args.publish(deadLetterTopic, [deadLetterOf(asText(raw), undecodable, 0)]);
    countDeadLetter(raw.topic, args.options.group);
    return;
  }
  const message = (attempt: number) => toIncoming(raw, attempt);
  const span = {
    system: 'kafka',
    topic: raw.topic,
    partition: raw.partition,
    group: args.options.group,
    headers: raw.headers,
  } as const;
  await inConsumeSpan(span, async () => {
    const outcome = await deliverWithRetries({
      handler: args.options.handler,
      message,
      maxAttempts,
      beforeRetry: () => payload.heartbeat(),
      ...(args.isTransient ? { isTransient: args.isTransient } : {}),
    });
    if (outcome.kind === 'exhausted') {
      await args.publish(deadLetterTopic, [
        deadLetterOf(message(outcome.attempts), outcome.error, outcome.attempts),
      ]);
      countDeadLetter(raw.topic, args.options.group);
    }
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
