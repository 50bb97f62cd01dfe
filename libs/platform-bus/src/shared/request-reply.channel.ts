import { randomUUID } from 'node:crypto';
import { Headers, replyTopic } from '@openwop/contracts';
import {
  RequestTimeoutError,
  type IncomingMessage,
  type MessageHandler,
  type OutgoingMessage,
  type RequestHandler,
  type RequestOptions,
  type ServeOptions,
  type SubscribeOptions,
  type Subscription,
} from '../bus.port';

export interface ReplyChannelDeps {
  readonly instanceId: string;
  readonly subscribe: (options: SubscribeOptions) => Promise<Subscription>;
  readonly publish: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>;
  /** Called once before the reply subscription (Kafka creates the 1-partition reply topic here). */
  readonly prepareReplyTopic?: (topic: string) => Promise<void>;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The requesting side of request/reply, shared by every adapter. Each bus instance has its own
 * reply topic (`replyTopic(instanceId)`); its subscription is joined lazily, before the first
 * request leaves. A reply whose correlation id is not pending (it came after its timeout, or
 * is an old reply read again from the topic's beginning) has nobody waiting and is skipped.
 */
export class ReplyChannel {
  private readonly pending = new Map<string, Pending>();
  private ready: Promise<Subscription> | undefined;

  constructor(private readonly deps: ReplyChannelDeps) {}

  get topic(): string {
    return replyTopic(this.deps.instanceId);
  }

  async request<TReply>(topic: string, message: OutgoingMessage, options: RequestOptions): Promise<TReply> {
    const correlationId = randomUUID();
    const reply = this.expect(correlationId, topic, options.timeoutMs);
    const sent = (async () => {
      await this.open();
      await this.deps.publish(topic, [
        {
          ...message,
          headers: {
            ...message.headers,
            [Headers.replyTo]: this.topic,
            [Headers.correlationId]: correlationId,
          },
        },
      ]);
    })();
    sent.catch(() => this.cancel(correlationId));
    // Whichever settles first: a send failure, or the reply (or its timeout).
    return (await Promise.race([reply, sent.then(() => reply)])) as TReply;
  }

  /** Stops the reply subscription and rejects every pending request. */
  async close(reason: string): Promise<void> {
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(new Error(`request aborted: ${reason}`));
      this.pending.delete(id);
    }
    const ready = this.ready;
    this.ready = undefined;
    // A failed setup was already reported to its request; a failed stop is reported here.
    const subscription = ready ? await ready.catch(() => undefined) : undefined;
    await subscription?.stop();
  }

  private open(): Promise<Subscription> {
    this.ready ??= (async () => {
      await this.deps.prepareReplyTopic?.(this.topic);
      return this.deps.subscribe({
        group: `reply-${this.deps.instanceId}-${randomUUID()}`,
        topics: [this.topic],
        fromBeginning: true,
        maxAttempts: 1,
        // A fresh group per process start: nobody resumes it, so its offsets need no commits.
        commitOffsets: false,
        handler: async (message) => this.settle(message),
      });
    })();
    const ready = this.ready;
    ready.catch(() => {
      if (this.ready === ready) this.ready = undefined; // retry the setup on the next request
    });
    return ready;
  }

  private expect(correlationId: string, topic: string, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new RequestTimeoutError(topic, timeoutMs));
      }, timeoutMs);
      this.pending.set(correlationId, { resolve, reject, timer });
    });
  }

  private cancel(correlationId: string): void {
    const entry = this.pending.get(correlationId);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(correlationId);
  }

  private settle(message: IncomingMessage): void {
    const correlationId = message.headers[Headers.correlationId];
    const entry = correlationId === undefined ? undefined : this.pending.get(correlationId);
    if (!entry || correlationId === undefined) return;
    clearTimeout(entry.timer);
    this.pending.delete(correlationId);
    entry.resolve(message.value);
  }
}

/**
 * Wraps a `serve` handler: its return value goes to the request's reply topic with the request's
 * correlation id. A message without a reply topic is an event: it is handled, nothing is sent.
 * A failed reply send throws, so the request is retried (handlers must be idempotent).
 */
export function replyingHandler(
  handler: RequestHandler,
  publish: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>,
): MessageHandler {
  return async (message) => {
    const result = await handler(message);
    const replyTo = message.headers[Headers.replyTo];
    const correlationId = message.headers[Headers.correlationId];
    if (replyTo === undefined || correlationId === undefined) return;
    await publish(replyTo, [
      { key: message.key, value: result ?? null, headers: { [Headers.correlationId]: correlationId } },
    ]);
  };
}

/**
 * `serve` as every adapter implements it: a subscription to the request topic whose handler's
 * return value is published to the request's reply topic.
 */
export function servingSubscription(
  options: ServeOptions,
  publish: (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>,
): SubscribeOptions {
  return {
    group: options.group,
    topics: [options.topic],
    maxAttempts: options.maxAttempts,
    fromBeginning: options.fromBeginning,
    deadLetterTopic: options.deadLetterTopic,
    handler: replyingHandler(options.handler, publish),
  };
}
