/**
 * Calls `run` with items; calls made while one runs are grouped into the next, one call for all
 * (under load, one DELETE for the rows of many decisions). Each caller's promise settles with the
 * call that carried its items. A sequential caller waits for nothing extra.
 */
export class GroupedCalls<T> {
  private waiting: { items: readonly T[]; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private running = false;

  constructor(private readonly run: (items: T[]) => Promise<void>) {}

  call(items: readonly T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ items, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      const taken = this.waiting.splice(0);
      try {
        await this.run(taken.flatMap((t) => t.items));
        for (const t of taken) t.resolve();
      } catch (e) {
        for (const t of taken) t.reject(e);
      }
    }
    this.running = false;
  }
}
