import type { BatchHandler, DeadLetterHook, MessageHandler } from '../bus.port';

/** One subscriber of a consumer group. `crashed` members never commit again. */
export class GroupMember {
  private dead = false;

  constructor(
    readonly id: number,
    readonly topics: readonly string[],
    readonly handler: MessageHandler,
    readonly maxAttempts: number,
    readonly deadLetterTopic: string,
    readonly batch?: { readonly handler: BatchHandler; readonly max: number },
    readonly isTransient?: (error: unknown) => boolean,
    readonly onDeadLetter?: DeadLetterHook,
    /** See `SubscribeOptions.transientBudgetMs`; undefined: the default budget. */
    readonly transientBudgetMs?: number,
    /** See `SubscribeOptions.gatherMs` (already capped); undefined or 0: deliver at once. */
    readonly gatherMs?: number,
  ) {}

  private tick: Promise<void> | undefined;

  /**
   * Resolves at this member's next gather tick: every partition it owns delivers what waits then,
   * together, as one fetch of the Kafka adapter would (a batch handler that groups its concurrent
   * calls, like the notifier's, then makes one statement of them all).
   */
  gathered(): Promise<void> {
    this.tick ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.tick = undefined;
        resolve();
      }, this.gatherMs ?? 0);
      timer.unref?.();
    });
    return this.tick;
  }

  get crashed(): boolean {
    return this.dead;
  }

  markCrashed(): void {
    this.dead = true;
  }
}
