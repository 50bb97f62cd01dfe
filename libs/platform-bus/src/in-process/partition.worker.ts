import { inConsumeSpan } from '@openwop/observability';
import type { IncomingMessage } from '../bus.port';
import { deliverWithRetries, retryWhileAlive } from '../shared/bounded-retry.policy';
import { deliverBatch } from '../shared/batch-delivery';
import { describeError, sendToDeadLetter } from '../shared/dead-letter.mapper';
import { decodeJson } from '../shared/json.codec';
import type { GroupMember } from './group.member';
import type { PartitionLog, StoredRecord } from './partition.log';

export interface PartitionWorkerContext {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly log: PartitionLog;
  readonly member: GroupMember;
  readonly committed: () => number;
  readonly commit: (nextOffset: number) => void;
  readonly publish: (
    topic: string,
    messages: readonly { key: string; value: unknown; headers?: Readonly<Record<string, string>> }[],
  ) => void;
}

/**
 * Delivers one partition to its owner, one message at a time (or, for a member with a batch
 * handler, the messages already waiting, together), from the group's committed offset. The offset advances only after the handler resolved (or the message was
 * dead-lettered). A revoked worker finishes its in-flight message first; a crashed owner's
 * worker stops at once and commits nothing more.
 */
export class PartitionWorker {
  readonly done: Promise<void>;
  private readonly revoked = new AbortController();

  constructor(
    private readonly ctx: PartitionWorkerContext,
    private readonly previous: Promise<void>,
  ) {
    this.done = this.run().catch((error: unknown) => {
      // Unreachable unless this class has a bug: fail loudly rather than stall the partition.
      setImmediate(() => {
        throw error;
      });
    });
  }

  get member(): GroupMember {
    return this.ctx.member;
  }

  get isRevoked(): boolean {
    return this.revoked.signal.aborted;
  }

  revoke(): void {
    this.revoked.abort();
  }

  /** Resolves when the next owner may start: after the in-flight message, or at once after a crash. */
  handover(): Promise<void> {
    return this.ctx.member.crashed ? this.previous : this.done;
  }

  private get active(): boolean {
    return !this.revoked.signal.aborted && !this.ctx.member.crashed;
  }

  private async run(): Promise<void> {
    await this.previous;
    const { log, member } = this.ctx;
    while (this.active) {
      const offset = this.ctx.committed();
      if (!(await log.waitFor(offset, this.revoked.signal))) return;
      // Never deliver inside publish()'s call stack, and let other partitions take turns.
      await new Promise<void>((resolve) => setImmediate(resolve));
      // A member that gathers (SubscribeOptions.gatherMs) takes what waits at its next tick.
      if (member.batch && member.gatherMs) await untilAborted(member.gathered(), this.revoked.signal);
      if (!this.active || !log.at(offset)) return;
      const settled = member.batch
        ? await this.deliverWaiting(offset, member.batch)
        : await this.deliverOne(offset);
      if (settled === 0 || member.crashed) return;
      this.ctx.commit(offset + settled);
    }
  }

  /** The records already waiting from `offset` (at most `max`) to the batch handler; see `deliverBatch`. */
  private async deliverWaiting(offset: number, batch: NonNullable<GroupMember['batch']>): Promise<number> {
    const offsets: number[] = [];
    for (let o = offset; o < this.ctx.log.end && offsets.length < batch.max; o++) offsets.push(o);
    const { group, topic, partition } = this.ctx;
    const first = this.ctx.log.at(offset)!;
    const span = { system: 'in-process', group, topic, partition, headers: first.headers } as const;
    return deliverBatch({
      messages: offsets,
      batch: (os) =>
        inConsumeSpan(span, async () => {
          const messages = os.map((o) => this.toMessage(this.ctx.log.at(o)!, o, 1));
          if (this.ctx.member.crashed) throw new Error('member crashed');
          await batch.handler(messages);
        }),
      one: async (o) => (await this.deliverOne(o)) === 1,
    });
  }

  /** Delivers the record at `offset` with retries; 1 when settled (handled or dead-lettered), else 0. */
  private async deliverOne(offset: number): Promise<number> {
    const { member } = this.ctx;
    const record = this.ctx.log.at(offset);
    if (!this.active || !record) return 0;
    const message = (attempt: number) => this.toMessage(record, offset, attempt);
    const { group, topic, partition } = this.ctx;
    const span = { system: 'in-process', group, topic, partition, headers: record.headers } as const;
    let hookUnfinished = false;
    // An outage waited out without bound ends when this worker stops owning the partition (a stop
    // or a rebalance, not only a crash): the record stays uncommitted, for the next owner.
    const unbounded = member.transientBudgetMs === Infinity;
    const outcome = await inConsumeSpan(span, async () => {
      const delivered = await deliverWithRetries({
        handler: member.handler,
        message,
        maxAttempts: member.maxAttempts,
        alive: unbounded ? () => this.active : () => !member.crashed,
        ...(member.isTransient ? { isTransient: member.isTransient } : {}),
        ...(member.transientBudgetMs === undefined ? {} : { transientBudgetMs: member.transientBudgetMs }),
      });
      if (delivered.kind === 'exhausted' && !member.crashed) {
        // The in-memory send cannot fail. The hook (which may fail the run the message would have
        // carried forward) is retried while this worker owns the partition: there is no broker to
        // bring the message back, so giving up would leave that run open. A worker that stops first
        // leaves the record uncommitted, and the next owner delivers it again, as on Kafka.
        const hook = member.onDeadLetter;
        await sendToDeadLetter({
          publish: (t, ms) => this.ctx.publish(t, ms),
          deadLetterTopic: member.deadLetterTopic,
          group,
          message: message(delivered.attempts),
          cause: 'exhausted',
          error: delivered.error,
          attempts: delivered.attempts,
          onDeadLetter:
            hook &&
            (async (m, notice) => {
              const done = await retryWhileAlive(
                () => hook(m, notice),
                () => this.active,
                (error, tries) => {
                  if ((tries & (tries - 1)) === 0)
                    console.error(
                      `onDeadLetter of group ${group} failed on ${topic} (try ${tries}, retrying): ${describeError(error)}`,
                    );
                },
              );
              if (!done) hookUnfinished = true;
            }),
        });
      }
      return delivered;
    });
    return member.crashed || hookUnfinished || outcome.kind === 'abandoned' ? 0 : 1;
  }

  private toMessage(record: StoredRecord, offset: number, attempt: number): IncomingMessage {
    return {
      topic: this.ctx.topic,
      partition: this.ctx.partition,
      offset: String(offset),
      key: record.key,
      value: decodeJson(record.value),
      headers: { ...record.headers },
      attempt,
    };
  }
}

/** `p`, or sooner when `signal` aborts. */
function untilAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void p.then(done);
  });
}
