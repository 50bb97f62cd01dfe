import { Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { assertRunEvent, Topics, upcastRunEvent, type RunEventDoc } from '@openwop/contracts';
import { applyRunEvents, clearProjectionBroken } from '../run-event.projection';
import { BulkProjector } from './bulk-projection';

/** What a replay read and stored, and where its time went. */
export interface RebuildResult {
  readonly events: number;
  readonly applied: number;
  readonly seconds: number;
  /** Events of broken runs held, not applied (ADR 0019). */
  readonly held?: number;
  /** Runs the rebuild marked broken: an event of theirs could not be stored. */
  readonly broken?: number;
  /** Seconds in each phase (they overlap: the log is read and decoded while batches are written). */
  readonly phases?: Readonly<Record<string, number>>;
}

/** Events per batch of a rebuild (`OPENWOP_REBUILD_BATCH`). */
const REBUILD_BATCH = Number(process.env['OPENWOP_REBUILD_BATCH'] ?? 8_000);
/** Transactions writing a batch side by side, runs split between them (`OPENWOP_REBUILD_WRITERS`). */
const REBUILD_WRITERS = Number(process.env['OPENWOP_REBUILD_WRITERS'] ?? 2);

/**
 * Replays the run event topic from offset 0 into `target` (fresh, migrated tables) up to the high
 * watermarks read at start, with the live projector's folds and rules ({@link BulkProjector}):
 * thousands of events per transaction, each run's row and each conversation's written once per
 * batch, the topic read ahead in large fetches while a batch is written. The secondary indexes of
 * the projection tables that the load does not read are built once at the end.
 * Reads with a throwaway consumer group and commits nothing.
 */
export async function rebuildProjections(
  brokers: string[],
  target: DataSource,
  namespace = '',
  options: { readonly batchSize?: number; readonly writers?: number } = {},
): Promise<RebuildResult> {
  const started = performance.now();
  const { fresh, deferred } = await dropDeferrableIndexes(target);
  const projector = new BulkProjector(target, { fresh, writers: options.writers ?? REBUILD_WRITERS });
  const batchSize = options.batchSize ?? REBUILD_BATCH;
  const read = await replayTopic(brokers, namespace, batchSize, (events) => projector.apply(events));
  const t = performance.now();
  for (const definition of deferred) await target.query(definition);
  const indexMs = performance.now() - t;
  const s = projector.stats;
  return {
    events: read.events,
    applied: s.applied,
    held: s.held,
    broken: s.broken,
    seconds: (performance.now() - started) / 1000,
    phases: {
      first_event: read.firstEventMs / 1000,
      decode: read.decodeMs / 1000,
      wait_for_log: read.waitMs / 1000,
      load: s.loadMs / 1000,
      fold: s.foldMs / 1000,
      write: s.writeMs / 1000,
      index: indexMs / 1000,
      batches: s.batches,
      fallbacks: s.fallbacks,
      ...Object.fromEntries(Object.entries(s.statementMs).map(([k, v]) => [`sql_${k}`, v / 1000])),
    },
  };
}

/**
 * Indexes of the projection tables that only readers use (not unique, not read by the load):
 * dropped before a bulk load of empty tables and built once after it, from their own definitions.
 */
async function dropDeferrableIndexes(target: DataSource): Promise<{ fresh: boolean; deferred: string[] }> {
  const rows = await target.query<{ name: string; definition: string }[]>(
    `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
     JOIN pg_class c ON c.relname = i.indexname JOIN pg_index x ON x.indexrelid = c.oid
     WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[]) AND NOT x.indisunique
       AND i.indexname <> ALL($2::text[])`,
    [Object.keys(TABLES), [...READ_BY_THE_LOAD]],
  );
  const [state] = await target.query<{ empty: boolean }[]>(
    `SELECT NOT EXISTS (SELECT 1 FROM run_events) AND NOT EXISTS (SELECT 1 FROM runs)
       AND NOT EXISTS (SELECT 1 FROM conversations) AND NOT EXISTS (SELECT 1 FROM pending_interrupts) AS empty`,
  );
  if (!state?.empty) return { fresh: false, deferred: [] };
  for (const r of rows) await target.query(`DROP INDEX "${r.name.replace(/"/g, '""')}"`);
  return { fresh: true, deferred: rows.map((r) => r.definition) };
}

/** The load deletes pending interrupts by run. */
const READ_BY_THE_LOAD: ReadonlySet<string> = new Set(['pending_interrupts_run']);

export interface RepairResult extends RebuildResult {
  /** Runs whose projection was broken and now holds every event of the log. */
  readonly repaired: readonly string[];
  /** Runs still broken: an event failed again (its new reason is in `projectionError`). */
  readonly stillBroken: readonly string[];
}

/**
 * Repairs, in the live database, the runs whose projection is marked broken (`runs.projection_error`,
 * an event the projector could not store): replays the topic from offset 0 and applies those runs'
 * events in order with the same projection code (stored events are skipped by id), then clears the
 * mark. Run it once the cause is fixed. A run whose event fails again stays marked, with the new reason.
 */
export async function repairBrokenRuns(
  brokers: string[],
  live: DataSource,
  namespace = '',
): Promise<RepairResult> {
  const started = Date.now();
  const broken = new Set(
    (
      await live.query<{ run_id: string }[]>('SELECT run_id FROM runs WHERE projection_error IS NOT NULL')
    ).map((r) => r.run_id),
  );
  const failed = new Set<string>();
  let events = 0;
  let applied = 0;
  if (broken.size > 0) {
    await replayTopic(brokers, namespace, 1_000, async (batch) => {
      for (const event of batch) {
        if (!broken.has(event.runId) || failed.has(event.runId)) continue;
        events++;
        try {
          const moved = await live.transaction((m) => applyRunEvents(m, [event], { repair: true }));
          applied += moved.length;
        } catch {
          failed.add(event.runId);
        }
      }
    });
  }
  const repaired = [...broken].filter((runId) => !failed.has(runId));
  for (const runId of repaired) await live.transaction((m) => clearProjectionBroken(m, runId));
  return { events, applied, seconds: (Date.now() - started) / 1000, repaired, stillBroken: [...failed] };
}

interface ReadResult {
  readonly events: number;
  /** From the start of the read to the first event decoded (connecting, joining the group). */
  readonly firstEventMs: number;
  /** Parsing and validating messages. */
  readonly decodeMs: number;
  /** The writer waiting for the log (nothing decoded yet). */
  readonly waitMs: number;
}

/** A message of the run event topic, as the live projector reads it (validated, upcast). */
function decode(value: Buffer | null): RunEventDoc {
  return upcastRunEvent(assertRunEvent(JSON.parse(value?.toString() ?? 'null')));
}

/** Events read ahead of the writer at most (about this many decoded events in memory). */
const READ_AHEAD = 64_000;

/**
 * Reads the run event topic from offset 0 up to the high watermarks read at start, in order per
 * partition, in large fetches, and hands `onBatch` up to `batchSize` events at a time, one call
 * after another, while the next ones are read (a run's events are in one partition, so each run's
 * are handed in log order).
 */
async function replayTopic(
  brokers: string[],
  namespace: string,
  batchSize: number,
  onBatch: (events: RunEventDoc[]) => Promise<void>,
): Promise<ReadResult> {
  const started = performance.now();
  const topic = namespace ? `${namespace}.${Topics.runEvents}` : Topics.runEvents;
  const kafka = new Kafka({ clientId: 'openwop-rebuild', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const watermarks = await admin.fetchTopicOffsets(topic).catch(() => []);
  await admin.disconnect();
  const pending = new Map(
    watermarks.filter((w) => Number(w.high) > Number(w.low)).map((w) => [w.partition, Number(w.high)]),
  );
  const result = { events: 0, firstEventMs: 0, decodeMs: 0, waitMs: 0 };
  if (pending.size === 0) return result;
  const consumer = kafka.consumer({
    groupId: `openwop-rebuild-${process.pid}-${Date.now()}`,
    maxWaitTimeInMs: 100,
    maxBytesPerPartition: 8 * 1024 * 1024,
    maxBytes: 64 * 1024 * 1024,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const queue: RunEventDoc[][] = [];
  let queued = 0;
  let readerDone = false;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  /** Per partition, the offset after the last message handed on. */
  const next = new Map<number, number>();
  const wakeWriter = new Signal();
  const wakeReader = new Signal();
  consumer
    .run({
      autoCommit: false,
      eachBatch: async (payload) => {
        const { batch } = payload;
        const high = pending.get(batch.partition);
        if (high === undefined || stopped) return;
        const t = performance.now();
        const events: RunEventDoc[] = [];
        const from = next.get(batch.partition) ?? 0;
        for (const message of batch.messages) {
          const offset = Number(message.offset);
          if (offset >= high) break;
          if (offset < from) continue; // fetched again after a rebalance: handed on once
          events.push(decode(message.value));
          next.set(batch.partition, offset + 1);
          if (offset === high - 1) pending.delete(batch.partition);
        }
        if (result.firstEventMs === 0 && events.length > 0) result.firstEventMs = t - started;
        result.decodeMs += performance.now() - t;
        queue.push(events);
        queued += events.length;
        if (pending.size === 0) readerDone = true;
        wakeWriter.fire();
        // Waiting for the writer, the consumer keeps its group membership (no rebalance, no re-read).
        while (queued > READ_AHEAD && !stopped) {
          await Promise.race([wakeReader.next(), new Promise((r) => setTimeout(r, 2_000))]);
          await payload.heartbeat();
        }
        await payload.heartbeat();
      },
    })
    .catch((error: unknown) => {
      failure ??= { error };
      wakeWriter.fire();
    });
  try {
    for (;;) {
      if (failure) throw failure.error;
      if (queue.length === 0) {
        if (readerDone) break;
        const t = performance.now();
        await wakeWriter.next();
        result.waitMs += performance.now() - t;
        continue;
      }
      const events: RunEventDoc[] = [];
      while (queue.length > 0 && events.length < batchSize) {
        const next = queue[0]!;
        const room = batchSize - events.length;
        if (next.length <= room) {
          events.push(...next);
          queue.shift();
        } else {
          events.push(...next.slice(0, room));
          queue[0] = next.slice(room);
        }
      }
      queued -= events.length;
      result.events += events.length;
      wakeReader.fire();
      await onBatch(events);
    }
  } finally {
    stopped = true;
    wakeReader.fire();
    await consumer.disconnect();
  }
  return result;
}

/** Wakes whoever waits on it (one waiter at a time here). */
class Signal {
  private waiter: (() => void) | undefined;
  private fired = false;
  next(): Promise<void> {
    if (this.fired) {
      this.fired = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.waiter = resolve));
  }
  fire(): void {
    const w = this.waiter;
    this.waiter = undefined;
    if (w) w();
    else this.fired = true;
  }
}

const TABLES = {
  run_events:
    'SELECT event_id, run_id, sequence, type, node_id, doc FROM run_events ORDER BY run_id, sequence',
  pending_interrupts:
    'SELECT interrupt_id, run_id, node_id, tenant, workflow_id, kind, key, data, timeout_ms, requested_at FROM pending_interrupts ORDER BY interrupt_id',
  // A broken run's mark says when the projector noticed (`at`), which no log holds: compared without it.
  runs: `SELECT run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot #- '{projectionError,at}' AS snapshot,
    projection_error - 'at' AS projection_error, created_at, updated_at FROM runs ORDER BY run_id`,
  conversations:
    'SELECT conversation_id, run_id, node_id, tenant, status, participants, turn_count, opened_at, closed_at, outcome, last_sequence FROM conversations ORDER BY conversation_id',
  conversation_turns:
    'SELECT conversation_id, turn_index, message_id, run_id, role, from_id, speaker_id, to_id, group_id, agent, content, ts FROM conversation_turns ORDER BY conversation_id, turn_index',
} as const;

/** Compares the projection tables of two databases row by row; returns the names of tables that differ. */
export async function compareProjections(a: DataSource, b: DataSource): Promise<string[]> {
  const differing: string[] = [];
  for (const [table, sql] of Object.entries(TABLES)) {
    const [ra, rb] = await Promise.all([a.query<unknown[]>(sql), b.query<unknown[]>(sql)]);
    if (JSON.stringify(ra) !== JSON.stringify(rb)) differing.push(table);
  }
  return differing;
}
