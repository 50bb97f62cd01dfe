/** One stored message: value as JSON text and frozen headers, so nothing mutable is shared. */
export interface StoredRecord {
  readonly key: string;
  readonly value: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Records dropped at once by {@link PartitionLog.trimBefore}; amortises the array shift. */
const TRIM_BATCH = 256;

/**
 * An append-only partition with retention: offsets grow forever, records every consumer group has
 * committed past are dropped, so a long-running embedded host keeps memory flat.
 */
export class PartitionLog {
  private readonly records: StoredRecord[] = [];
  private readonly waiters = new Set<() => void>();
  private base = 0;

  /** The oldest offset still held. */
  get start(): number {
    return this.base;
  }

  get end(): number {
    return this.base + this.records.length;
  }

  at(offset: number): StoredRecord | undefined {
    return offset < this.base ? undefined : this.records[offset - this.base];
  }

  /** Drops records below `offset` (every group has committed past them), in batches. */
  trimBefore(offset: number): void {
    const drop = Math.min(offset - this.base, this.records.length);
    if (drop < TRIM_BATCH) return;
    this.records.splice(0, drop);
    this.base += drop;
  }

  append(record: StoredRecord): void {
    this.records.push(record);
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves true once a record exists at `offset`, false if `signal` aborts first. */
  waitFor(offset: number, signal: AbortSignal): Promise<boolean> {
    if (offset < this.end) return Promise.resolve(true);
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
