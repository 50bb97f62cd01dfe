import type { DataSource, EntityManager } from 'typeorm';
import { detachedFromTrace } from '@openwop/observability';
import { GroupedCalls } from './grouped-calls';
import { takeAppended, withTrace } from './outbox-append';
import { deletesRidingOn, PublishedDeletes } from './outbox-published-deletes';
import { transaction } from './transaction';

export type Publish = (
  topic: string,
  messages: readonly { key: string; value: unknown; headers?: Record<string, string> }[],
) => Promise<void>;

interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  value: unknown;
  headers: Record<string, string>;
  traceparent: string | null;
  tracestate: string | null;
}

/** Pause before retrying when another relay holds the lock. */
const CONTENDED_RETRY_MS = 5;

/**
 * The periodic sweep leaves rows younger than this to the process that wrote them, which publishes
 * and deletes them right after its commit ({@link OutboxRelay.transaction}); a sweep that took
 * them too would only publish them twice. Kicks publish every row, young or old.
 */
const SWEEP_MIN_AGE_MS = 2_000;

/**
 * How long a published row's delete waits for a transaction of the relay to ride on before it is
 * sent on its own: well under {@link SWEEP_MIN_AGE_MS}, so no sweep meets a published row.
 */
const DELETE_RIDE_MS = 200;

/**
 * How often the sweep looks for rows their writer did not publish (a crash, a failed send). Rows are
 * at least {@link SWEEP_MIN_AGE_MS} old before it takes them, so sweeping more often gains nothing.
 */
const DEFAULT_SWEEP_MS = 1_000;

/** Arbitrary constant of the advisory lock that makes one relay at a time publish, in outbox order. */
const RELAY_LOCK = 7_420_002;

/**
 * Publishes committed outbox rows in id order and deletes them in the same transaction.
 * A crash between publish and delete re-publishes the rows: consumers dedupe by id.
 * `kick()` after a commit publishes at once; a periodic sweep picks up what a crashed process left.
 */
export class OutboxRelay {
  private running: Promise<void> | null = null;
  private again = false;
  /** A kick (not only the sweep) asked for the next pass: it publishes rows of any age. */
  private kicked = false;
  /** Another relay held the lock during this pass: it is publishing; retry after a short pause. */
  private contended = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  /**
   * Rows published right after their commit, not yet deleted: their delete rides the closing
   * statement of the relay's next transaction ({@link transaction}); when none comes within
   * {@link DELETE_RIDE_MS}, they are deleted on their own ({@link deletes}).
   */
  private readonly published = new PublishedDeletes();
  /** Direct publishes handed to the bus whose broker answer has not come yet ({@link transaction}). */
  private readonly sending = new Set<Promise<void>>();
  private deleteTimer: NodeJS.Timeout | null = null;

  /** Deletes of published rows no transaction took; those asked for while one runs go together. */
  private readonly deletes: GroupedCalls<string>;

  constructor(
    private readonly ds: DataSource,
    private readonly publish: Publish,
    private readonly options: {
      sweepMs?: number;
      batchSize?: number;
      onError?: (e: unknown) => void;
      /**
       * The process is alone on its outbox (the one-process host): the delete of a published row
       * may wait for the relay's next transaction to ride on. With other processes on the table it
       * may not: their writes would find the row still there, take it for an older row of its key
       * that waits, and have their relays publish it again.
       */
      deletesRide?: boolean;
    } = {},
  ) {
    this.deletes = new GroupedCalls(async (ids) => {
      await this.ds.query('DELETE FROM outbox WHERE id = ANY($1::bigint[])', [ids]);
    });
  }

  /** Deletes now the published rows that no transaction took. */
  private async deletePublished(): Promise<void> {
    if (this.deleteTimer) clearTimeout(this.deleteTimer);
    this.deleteTimer = null;
    const ids = this.published.takeAll();
    if (ids.length === 0) return;
    try {
      await this.deletes.call(ids);
    } catch (e) {
      this.published.add(ids);
      throw e;
    }
  }

  private deleteSoon(): void {
    if (this.deleteTimer || this.stopped) return;
    this.deleteTimer = setTimeout(() => {
      this.deleteTimer = null;
      this.deletePublished().catch((e: unknown) => {
        (this.options.onError ?? ((err) => console.error('outbox delete failed; retried', err)))(e);
        this.deleteSoon();
      });
    }, DELETE_RIDE_MS);
    this.deleteTimer.unref?.();
  }

  start(): void {
    this.stopped = false;
    const sweep = () => {
      if (this.stopped) return;
      void this.flush(false);
      this.timer = setTimeout(sweep, this.options.sweepMs ?? DEFAULT_SWEEP_MS);
    };
    sweep();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.directSendsSettled();
    await this.running;
    await this.deletePublished().catch(() => undefined); // left to the next sweep: published twice, deduped
  }

  /** Requests a flush; returns a promise that settles when the flush that covers this request ends. */
  kick(): Promise<void> {
    return this.flush(true);
  }

  private flush(kicked: boolean): Promise<void> {
    if (kicked) this.kicked = true;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    // The relay publishes rows of many traces: it must not run in the trace of whoever kicked it.
    this.running = detachedFromTrace(() => this.loop()).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * Runs `work` in a transaction (see {@link transaction}) and, once it committed, hands what it
   * appended to the outbox to the bus before resolving (see {@link publishAppended}): what the caller
   * publishes next (its command's reply) comes after it on the bus, and leaves in the same produce
   * request (the bus gathers the publishes of one turn, ADR 0039). The caller does not wait for
   * the broker's answer: the rows are committed, and a failed send is the relay's to retry.
   */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const used: EntityManager[] = [];
    let result: T;
    try {
      result = await transaction(this.ds, (manager) => {
        used.push(manager);
        if (this.options.deletesRide) deletesRidingOn.set(manager, this.published);
        return work(manager);
      });
    } catch (error) {
      for (const m of used) this.published.settle(m, false);
      this.deleteSoon();
      throw error;
    }
    // A transaction taken again (ADR 0039) used a manager per attempt; only the last committed.
    for (const [i, m] of used.entries()) this.published.settle(m, i === used.length - 1);
    const last = used[used.length - 1];
    if (last) this.track(this.publishAppended(last));
    return result;
  }

  /** Keeps `sending` until it settles: the relay's passes and {@link stop} wait for it. */
  private track(sending: Promise<void>): void {
    this.sending.add(sending);
    void sending.finally(() => this.sending.delete(sending));
  }

  /**
   * Waits for the direct publishes in flight: a pass of the relay would otherwise read their rows
   * (not deleted yet) and send them a second time. A direct send that failed leaves its rows to
   * this pass, which sends them in order with the rows after them.
   */
  private async directSendsSettled(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending]);
  }

  /**
   * Publishes what the transaction of `manager` appended, right after it committed, without
   * another transaction: one send per topic run, then one delete. Rows that must wait for older
   * ones of the same key, or a failed send, are left to the relay (kicked here). Never throws: the
   * rows are committed, so the relay's sweep publishes them whatever happens here.
   */
  private async publishAppended(manager: EntityManager): Promise<void> {
    const appended = takeAppended(manager);
    if (!appended || appended.length === 0) return;
    if (appended.some((a) => a.behind)) {
      void this.kick();
      return;
    }
    try {
      await detachedFromTrace(async () => {
        const messages = appended.flatMap((a) => a.messages);
        await Promise.all(
          byTopic(messages).map((batch) =>
            this.publish(
              batch[0]!.topic,
              batch.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
            ),
          ),
        );
        const ids = appended.flatMap((a) => a.ids);
        if (this.options.deletesRide) {
          this.published.add(ids);
          this.deleteSoon();
        } else {
          await this.deletes.call(ids);
        }
      });
    } catch (e) {
      (
        this.options.onError ??
        ((err) => console.error('outbox direct publish failed; the relay retries', err))
      )(e);
      void this.kick();
    }
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      this.contended = false;
      const kickedPass = this.kicked;
      this.kicked = false;
      const minAgeMs = kickedPass ? 0 : SWEEP_MIN_AGE_MS;
      try {
        if (!kickedPass && !(await this.anyOlderThan(minAgeMs))) continue;
        while (await this.flushOnce(minAgeMs)) {
          /* a full batch: there may be more */
        }
      } catch (e) {
        (this.options.onError ?? ((err) => console.error('outbox relay failed', err)))(e);
        return;
      }
      // The pass that met another relay's lock is owed again, with the same reach.
      if (this.contended && kickedPass) this.kicked = true;
      // Without the pause, two relays spin on the lock at thousands of commits a second.
      if (this.contended) await new Promise((r) => setTimeout(r, CONTENDED_RETRY_MS));
    } while (this.again && !this.stopped);
  }

  /**
   * One statement, no transaction or lock: is the first waiting row (in outbox order) at least
   * `minAgeMs` old? Most sweeps find none. It reads the primary key's first live entry: a filter on
   * `created_at` would scan the whole heap, dead rows included, every second. Ids follow writes, so a
   * row that a crashed writer left is the first once the rows before it are published, in moments.
   */
  private async anyOlderThan(minAgeMs: number): Promise<boolean> {
    const [first] = await this.ds.query<{ old: boolean }[]>(
      `SELECT created_at < now() - ($1::int * interval '1 millisecond') AS old FROM outbox ORDER BY id LIMIT 1`,
      [minAgeMs],
    );
    return first?.old === true;
  }

  /** Publishes one batch of rows at least `minAgeMs` old; true when the batch was full. */
  private async flushOnce(minAgeMs: number): Promise<boolean> {
    const limit = this.options.batchSize ?? 500;
    await this.directSendsSettled();
    return this.ds.transaction(async (m) => {
      const [lock] = await m.query<{ locked: boolean }[]>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        RELAY_LOCK,
      ]);
      if (!lock?.locked) {
        this.again = true;
        this.contended = true;
        return false;
      }
      // Rows this process published and has yet to delete are not published again.
      const published = this.published.all();
      const rows = await m.query<OutboxRow[]>(
        minAgeMs > 0
          ? `SELECT id, topic, key, value, headers, traceparent, tracestate FROM outbox
             WHERE created_at < now() - ($3::int * interval '1 millisecond') AND NOT (id = ANY($2::bigint[]))
             ORDER BY id LIMIT $1`
          : `SELECT id, topic, key, value, headers, traceparent, tracestate FROM outbox
             WHERE NOT (id = ANY($2::bigint[])) ORDER BY id LIMIT $1`,
        minAgeMs > 0 ? [limit, published, minAgeMs] : [limit, published],
      );
      if (rows.length === 0) return false;
      await Promise.all(
        byTopic(rows).map((batch) =>
          this.publish(
            batch[0]!.topic,
            batch.map((r) => ({ key: r.key, value: r.value, headers: withStoredTrace(r) })),
          ),
        ),
      );
      await m.query('DELETE FROM outbox WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
      return rows.length === limit;
    });
  }
}

/** The row's headers with the trace context of the transaction that wrote it, when it had one. */
function withStoredTrace(row: OutboxRow): Record<string, string> {
  return withTrace(row.headers, {
    traceparent: row.traceparent ?? undefined,
    tracestate: row.tracestate ?? undefined,
  });
}

/**
 * Rows grouped by topic, each group in the rows' order. The outbox promises order per topic and key
 * (one partition), not across topics: each group is one publish, and the groups go out together (the
 * bus's producer carries concurrent publishes in one request). Consecutive runs of one topic instead
 * would make rows that alternate topics (a timer batch: `run.resume`, its audit fact, the next
 * `run.resume`, …) one produce round trip each: 500 rows took 10–20 s to relay in a storm of
 * 99,000 expiries (docs/performance-log.md, round 11).
 */
function byTopic<R extends { readonly topic: string }>(rows: readonly R[]): R[][] {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const group = groups.get(row.topic);
    if (group) group.push(row);
    else groups.set(row.topic, [row]);
  }
  return [...groups.values()];
}
