import type { DataSource, EntityManager } from 'typeorm';
import { activeTraceHeaders, detachedFromTrace } from '@openwop/observability';

export interface OutboxMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Appends messages to the outbox inside the caller's transaction: they publish iff it commits.
 * Each row keeps the active trace context, which the relay re-attaches when it publishes.
 */
export async function appendToOutbox(manager: EntityManager, messages: readonly OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const trace = activeTraceHeaders();
  const params: unknown[] = [];
  const rows = messages.map((m, i) => {
    params.push(m.topic, m.key, JSON.stringify(m.value), JSON.stringify(m.headers ?? {}), trace.traceparent ?? null, trace.tracestate ?? null);
    const b = i * 6;
    return `($${b + 1}, $${b + 2}, $${b + 3}::jsonb, $${b + 4}::jsonb, $${b + 5}, $${b + 6})`;
  });
  await manager.query(
    `INSERT INTO outbox (topic, key, value, headers, traceparent, tracestate) VALUES ${rows.join(', ')}`,
    params,
  );
}

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
  /** Another relay held the lock during this pass: it is publishing; retry after a short pause. */
  private contended = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly publish: Publish,
    private readonly options: { sweepMs?: number; batchSize?: number; onError?: (e: unknown) => void } = {},
  ) {}

  start(): void {
    this.stopped = false;
    const sweep = () => {
      if (this.stopped) return;
      void this.kick();
      this.timer = setTimeout(sweep, this.options.sweepMs ?? 250);
    };
    sweep();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Requests a flush; returns a promise that settles when the flush that covers this request ends. */
  kick(): Promise<void> {
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

  private async loop(): Promise<void> {
    do {
      this.again = false;
      this.contended = false;
      try {
        while (await this.flushOnce()) {
          /* a full batch: there may be more */
        }
      } catch (e) {
        (this.options.onError ?? ((err) => console.error('outbox relay failed', err)))(e);
        return;
      }
      // Without the pause, two relays spin on the lock at thousands of commits a second.
      if (this.contended) await new Promise((r) => setTimeout(r, CONTENDED_RETRY_MS));
    } while (this.again && !this.stopped);
  }

  /** Publishes one batch; true when the batch was full. */
  private async flushOnce(): Promise<boolean> {
    const limit = this.options.batchSize ?? 500;
    return this.ds.transaction(async (m) => {
      const [lock] = await m.query<{ locked: boolean }[]>('SELECT pg_try_advisory_xact_lock($1) AS locked', [RELAY_LOCK]);
      if (!lock?.locked) {
        this.again = true;
        this.contended = true;
        return false;
      }
      const rows = await m.query<OutboxRow[]>(
        'SELECT id, topic, key, value, headers, traceparent, tracestate FROM outbox ORDER BY id LIMIT $1',
        [limit],
      );
      if (rows.length === 0) return false;
      for (const batch of byTopicRuns(rows)) {
        await this.publish(
          batch[0]!.topic,
          batch.map((r) => ({ key: r.key, value: r.value, headers: withStoredTrace(r) })),
        );
      }
      await m.query('DELETE FROM outbox WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
      return rows.length === limit;
    });
  }
}

/** The row's headers with the trace context of the transaction that wrote it, when it had one. */
function withStoredTrace(row: OutboxRow): Record<string, string> {
  if (row.traceparent === null) return row.headers;
  const headers: Record<string, string> = { ...row.headers, traceparent: row.traceparent };
  if (row.tracestate !== null) headers.tracestate = row.tracestate;
  return headers;
}

/** Splits rows into consecutive runs of one topic, keeping their order. */
function byTopicRuns(rows: readonly OutboxRow[]): OutboxRow[][] {
  const runs: OutboxRow[][] = [];
  for (const row of rows) {
    const last = runs[runs.length - 1];
    if (last && last[0]!.topic === row.topic) last.push(row);
    else runs.push([row]);
  }
  return runs;
}
