import { randomUUID } from 'node:crypto';
import { Headers, notAppliedRefusal, replyTopic, Topics } from '@openwop/contracts';
import {
  RequestTimeoutError,
  type DeadLetterHook,
  type IncomingMessage,
  type MessageHandler,
  type OutgoingMessage,
  type RequestHandler,
  type RequestOptions,
  type ServeOptions,
  type SubscribeOptions,
  type Subscription,
} from '../bus.port';
import { deadLetterLog, identify, sendToDeadLetter } from './dead-letter.mapper';

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
 * request leaves. A reply whose correlation id is not pending has nobody waiting: one that came
 * after its request timed out is logged (the requester was told the command may still take effect);
 * an old reply read again from the topic's beginning is skipped.
 */
export class ReplyChannel {
  private readonly pending = new Map<string, Pending>();
  /** Correlation ids of requests that timed out lately (bounded), so a late reply is recognised. */
  private readonly timedOut = new Map<string, { topic: string; at: number }>();
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
        this.timedOut.set(correlationId, { topic, at: Date.now() });
        if (this.timedOut.size > MAX_REMEMBERED_TIMEOUTS)
          this.timedOut.delete(this.timedOut.keys().next().value!);
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
    if (!entry || correlationId === undefined) {
      const late = correlationId === undefined ? undefined : this.timedOut.get(correlationId);
      if (late && correlationId !== undefined) {
        this.timedOut.delete(correlationId);
        deadLetterLog.write(
          `reply to a request on ${late.topic} (key ${JSON.stringify(message.key)}) came ${Date.now() - late.at} ms ` +
            `after it timed out; the requester had been answered that it may still take effect: ${JSON.stringify(message.value).slice(0, 300)}`,
        );
      }
      return;
    }
    clearTimeout(entry.timer);
    this.pending.delete(correlationId);
    entry.resolve(message.value);
  }
}

/** How many timed-out correlation ids a reply channel remembers, to recognise their late replies. */
const MAX_REMEMBERED_TIMEOUTS = 1_000;

type Publish = (topic: string, messages: readonly OutgoingMessage[]) => Promise<void>;

/** Where a request's answer goes: its reply topic and correlation id, when it has both. */
function replyAddress(message: IncomingMessage): { replyTo: string; correlationId: string } | undefined {
  const replyTo = message.headers[Headers.replyTo];
  const correlationId = message.headers[Headers.correlationId];
  return replyTo === undefined || correlationId === undefined ? undefined : { replyTo, correlationId };
}

/** A `{ ok: false, error: { code } }` command reply. */
function refusalOf(result: unknown): { code: string; message?: unknown } | undefined {
  if (typeof result !== 'object' || result === null || (result as { ok?: unknown }).ok !== false)
    return undefined;
  const error = (result as { error?: { code?: unknown; message?: unknown } }).error;
  return typeof error?.code === 'string' ? { code: error.code, message: error.message } : undefined;
}

/**
 * Wraps a `serve` handler: its return value goes to the request's reply topic with the request's
 * correlation id. A message without a reply topic (a command sent from an outbox) has nobody to
 * answer: when the handler refused it, the refusal would be lost, so the message is dead-lettered
 * (cause `refused`) instead. A failed send throws, so the request is retried (handlers must be
 * idempotent).
 */
export function replyingHandler(
  handler: RequestHandler,
  publish: Publish,
  deadLetters?: {
    readonly group: string;
    readonly topic: string;
    readonly onDeadLetter?: DeadLetterHook | undefined;
  },
): MessageHandler {
  return async (message) => {
    const result = await handler(message);
    const address = replyAddress(message);
    if (address === undefined) {
      const refused = refusalOf(result);
      if (refused && deadLetters) {
        await sendToDeadLetter({
          publish,
          deadLetterTopic: deadLetters.topic,
          group: deadLetters.group,
          message,
          cause: 'refused',
          error: `refused ${refused.code}${typeof refused.message === 'string' ? `: ${refused.message}` : ''}`,
          attempts: message.attempt,
          onDeadLetter: deadLetters.onDeadLetter,
          code: refused.code,
        });
      }
      return;
    }
    await publish(address.replyTo, [
      {
        key: message.key,
        value: result ?? null,
        headers: { [Headers.correlationId]: address.correlationId },
      },
    ]);
  };
}

/**
 * `serve` as every adapter implements it: a subscription to the request topic whose handler's
 * return value is published to the request's reply topic. A request the adapter dead-letters
 * (retries exhausted, not JSON) is answered `command_not_applied` right away, so its requester
 * does not wait for its timeout; then the serve's own `onDeadLetter` runs.
 */
export function servingSubscription(options: ServeOptions, publish: Publish): SubscribeOptions {
  const onDeadLetter: DeadLetterHook = async (message, notice) => {
    const address = replyAddress(message);
    if (address !== undefined && notice.cause !== 'refused') {
      const { id, type } = identify(message);
      const reply = notAppliedRefusal({
        ...(id !== undefined ? { messageId: id } : {}),
        ...(type !== undefined ? { messageType: type } : {}),
        cause: notice.cause,
        attempts: notice.attempts,
      });
      await publish(address.replyTo, [
        { key: message.key, value: reply, headers: { [Headers.correlationId]: address.correlationId } },
      ]);
    }
    await options.onDeadLetter?.(message, notice);
  };
  return {
    group: options.group,
    topics: [options.topic],
    maxAttempts: options.maxAttempts,
    fromBeginning: options.fromBeginning,
    deadLetterTopic: options.deadLetterTopic,
    handler: replyingHandler(options.handler, publish, {
      group: options.group,
      topic: options.deadLetterTopic ?? Topics.deadLetter,
      onDeadLetter: options.onDeadLetter,
    }),
    onDeadLetter,
  };
}
