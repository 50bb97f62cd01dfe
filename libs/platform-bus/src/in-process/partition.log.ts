/** One stored message: value as JSON text and frozen headers, so nothing mutable is shared. */
export interface StoredRecord {
  readonly key: string;
  readonly value: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** An append-only partition; the offset of a record is its index. */
export class PartitionLog {
  private readonly records: StoredRecord[] = [];
  private readonly waiters = new Set<() => void>();

  get end(): number {
    return this.records.length;
  }

  at(offset: number): StoredRecord | undefined {
    return this.records[offset];
  }

  append(record: StoredRecord): void {
    this.records.push(record);
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves true once a record exists at `offset`, false if `signal` aborts first. */
  waitFor(offset: number, signal: AbortSignal): Promise<boolean> {
    if (offset < this.records.length) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.waiters.delete(wake);
        resolve(false);
      };
      const wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
