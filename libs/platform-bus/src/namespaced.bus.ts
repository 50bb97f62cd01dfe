import { Headers, Topics } from '@openwop/contracts';
import {
  RequestTimeoutError,
  type Bus,
  type IncomingMessage,
  type OutgoingMessage,
  type RequestOptions,
  type ServeOptions,
  type SubscribeOptions,
  type Subscription,
} from './bus.port';

/**
 * Prefixes every topic and consumer group of an inner bus with `<namespace>.`, so several
 * deployments (e.g. test stacks) share one broker without seeing each other. Handlers see
 * un-prefixed names (also in the dead-letter source header and in timeout errors); dead letters
 * go to the namespace's own dead-letter topic. The inner bus's reply topics are per instance
 * already and are left as they are.
 */
export class NamespacedBus implements Bus {
  private readonly prefix: string;

  constructor(
    /** The wrapped bus, which sees the qualified names. */
    readonly inner: Bus,
    readonly namespace: string,
  ) {
    if (namespace.length === 0) throw new RangeError('NamespacedBus needs a non-empty namespace');
    this.prefix = `${namespace}.`;
  }

  /** The inner bus's name for `topic` (also used for groups). */
  qualify(name: string): string {
    return this.prefix + name;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }

  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    return this.inner.publish(this.qualify(topic), messages);
  }

  subscribe(options: SubscribeOptions): Promise<Subscription> {
    const { handler, batchHandler, onDeadLetter } = options;
    return this.inner.subscribe({
      ...options,
      group: this.qualify(options.group),
      topics: options.topics.map((t) => this.qualify(t)),
      deadLetterTopic: this.qualify(options.deadLetterTopic ?? Topics.deadLetter),
      handler: (message) => handler(this.unqualified(message)),
      ...(onDeadLetter
        ? { onDeadLetter: (message, notice) => onDeadLetter(this.unqualified(message), notice) }
        : {}),
      ...(batchHandler
        ? { batchHandler: (messages) => batchHandler(messages.map((m) => this.unqualified(m))) }
        : {}),
    });
  }

  serve(options: ServeOptions): Promise<Subscription> {
    const { handler, onDeadLetter } = options;
    return this.inner.serve({
      ...options,
      group: this.qualify(options.group),
      topic: this.qualify(options.topic),
      deadLetterTopic: this.qualify(options.deadLetterTopic ?? Topics.deadLetter),
      handler: (message) => handler(this.unqualified(message)),
      ...(onDeadLetter
        ? { onDeadLetter: (message, notice) => onDeadLetter(this.unqualified(message), notice) }
        : {}),
    });
  }

  async request<TReply = unknown>(
    topic: string,
    message: OutgoingMessage,
    options: RequestOptions,
  ): Promise<TReply> {
    try {
      return await this.inner.request<TReply>(this.qualify(topic), message, options);
    } catch (error) {
      throw error instanceof RequestTimeoutError ? new RequestTimeoutError(topic, error.timeoutMs) : error;
    }
  }

  healthy(): Promise<boolean> {
    return this.inner.healthy();
  }

  private unqualified(message: IncomingMessage): IncomingMessage {
    const source = message.headers[Headers.deadLetterTopic];
    const headers =
      source === undefined
        ? message.headers
        : { ...message.headers, [Headers.deadLetterTopic]: this.strip(source) };
    return { ...message, topic: this.strip(message.topic), headers };
  }

  private strip(name: string): string {
    return name.startsWith(this.prefix) ? name.slice(this.prefix.length) : name;
  }
}
