/**
 * Calls `run` with items and hands each caller the result of the call that carried its items;
 * calls made while one runs are grouped into the next (one call for all). A gathered fetch hands
 * every partition's batch over at once, so the notifier's lookups of one fetch become one or two
 * statements instead of one per partition. A sequential caller waits for nothing extra.
 */
export class GroupedLookup<T, R> {
  private waiting: { items: readonly T[]; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private running = false;

  constructor(private readonly run: (items: T[]) => Promise<R>) {}

  call(items: readonly T[]): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ items, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    // Let the other batches of the same fetch, handed over in this turn, join the first call.
    await Promise.resolve();
    while (this.waiting.length > 0) {
      const taken = this.waiting.splice(0);
      try {
        const result = await this.run(taken.flatMap((t) => t.items));
        for (const t of taken) t.resolve(result);
      } catch (e) {
        for (const t of taken) t.reject(e);
      }
    }
    this.running = false;
  }
}
