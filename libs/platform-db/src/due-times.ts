import type { EntityManager } from 'typeorm';
import { afterCommit } from './transaction';

/**
 * The default poll interval of a timer in the one-process host (instead of 250 ms): every due time
 * there is written by the process itself and told to its timer ({@link DueTimes}), and its work
 * queues kick their workers, so a poll only finds what a process before a restart left.
 */
export const ONE_PROCESS_POLL_MS = 1_000;

/**
 * Due times a process writes, told to its own timers once their transaction committed, so a timer
 * ticks when its work is due instead of waiting for its next poll ({@link PollLoop.dueIn}). The
 * poll stays: it finds what another process (or a process before a restart) wrote. In the
 * one-process host every due time is written here, so its timers poll seldom (ADR 0039).
 */
export class DueTimes {
  private readonly listeners = new Set<(dueAt: string) => void>();

  /** `listener` hears each due time (ISO timestamp) once the transaction that wrote it committed. */
  watch(listener: (dueAt: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The earliest of `dueAts` (ISO timestamps, nulls skipped), for after the transaction of `manager` commits. */
  wrote(manager: EntityManager, dueAts: readonly (string | null | undefined)[]): void {
    if (this.listeners.size === 0) return;
    let first: string | undefined;
    let firstMs = Infinity;
    for (const at of dueAts) {
      const ms = at ? Date.parse(at) : NaN;
      if (ms < firstMs) {
        firstMs = ms;
        first = at!;
      }
    }
    if (first === undefined) return;
    const dueAt = first;
    afterCommit(manager, () => {
      for (const listener of this.listeners) listener(dueAt);
    });
  }
}
