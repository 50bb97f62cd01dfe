import type { EntityManager } from 'typeorm';

/**
 * Published rows whose delete rides the closing outbox statement of a transaction of the relay
 * ({@link OutboxRelay.transaction}): the relay's, per open transaction.
 */
export const deletesRidingOn = new WeakMap<EntityManager, PublishedDeletes>();

/** Ids of rows published but not yet deleted, whose delete may ride another statement. */
export class PublishedDeletes {
  private pending: string[] = [];
  private readonly riding = new Map<EntityManager, string[]>();

  add(ids: readonly string[]): void {
    this.pending.push(...ids);
  }

  /** Every id published and not yet deleted (pending or riding a statement not yet committed). */
  all(): string[] {
    return [...this.pending, ...[...this.riding.values()].flat()];
  }

  /** The pending ids, now riding the transaction of `manager`. */
  take(manager: EntityManager): string[] {
    const ids = this.pending;
    this.pending = [];
    if (ids.length > 0) this.riding.set(manager, [...(this.riding.get(manager) ?? []), ...ids]);
    return ids;
  }

  /** The transaction of `manager` ended: its riding deletes are done (committed) or pending again. */
  settle(manager: EntityManager, committed: boolean): void {
    const ids = this.riding.get(manager);
    this.riding.delete(manager);
    if (ids && !committed) this.pending.push(...ids);
  }

  takeAll(): string[] {
    const ids = this.pending;
    this.pending = [];
    return ids;
  }
}
