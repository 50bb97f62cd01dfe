/**
 * Publishes that arrive while a produce request is in flight go out together in the next request.
 *
 * The producer has one request in flight (so a retry never reorders a partition):
 * concurrent publishers would otherwise queue, each waiting a full acks=all round trip behind the
 * one before. Here a publish waits only for the end of the current turn of the event loop
 * (`setImmediate`), so the publishes one piece of work makes together leave in one request: a
 * decision's outbox rows and the reply to its command are one produce request, not three
 * (ADR 0039). Those that come while a request is in flight wait, and all of them leave in one
 * multi-topic request as soon as it returns. A sequential caller waits no I/O longer; under load,
 * requests carry many publishes each (a group commit).
 *
 * Order: messages leave in the order their `publish` calls were made, within a request and across
 * requests. Failure: when a request of several publishes fails, each publish is retried alone, so
 * one bad publish (a message over the broker's size limit, say) fails only its own caller.
 */
export interface TopicMessages<M> {
  readonly topic: string;
  readonly messages: readonly M[];
}

export type SendBatch<M> = (batch: readonly TopicMessages<M>[]) => Promise<void>;

interface Pending<M> {
  readonly topic: string;
  readonly messages: readonly M[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class ProduceCoalescer<M> {
  private queue: Pending<M>[] = [];
  private flushing = false;

  constructor(private readonly send: SendBatch<M>) {}

  publish(topic: string, messages: readonly M[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, messages, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const taken = this.queue;
        this.queue = [];
        await this.sendAll(taken);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async sendAll(taken: readonly Pending<M>[]): Promise<void> {
    try {
      await this.send(groupByTopic(taken));
      for (const p of taken) p.resolve();
      return;
    } catch (error) {
      if (taken.length === 1) {
        taken[0]!.reject(error);
        return;
      }
    }
    // Several publishes failed together: find out whose it was, one at a time, in order.
    for (const p of taken) {
      try {
        await this.send([{ topic: p.topic, messages: p.messages }]);
        p.resolve();
      } catch (error) {
        p.reject(error);
      }
    }
  }
}

/** One entry per topic, messages in publish order (a topic's first publish fixes its place). */
export function groupByTopic<M>(
  pending: readonly Pick<Pending<M>, 'topic' | 'messages'>[],
): TopicMessages<M>[] {
  const byTopic = new Map<string, M[]>();
  for (const p of pending) {
    const list = byTopic.get(p.topic);
    if (list) list.push(...p.messages);
    else byTopic.set(p.topic, [...p.messages]);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}
