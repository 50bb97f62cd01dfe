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
  ) {}

  get crashed(): boolean {
    return this.dead;
  }

  markCrashed(): void {
    this.dead = true;
  }
}
