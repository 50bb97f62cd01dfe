import { Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { assertRunEvent, Topics, type RunEventDoc } from '@openwop/contracts';
import { applyRunEvent, applyRunEvents, clearProjectionBroken } from '../run-event.projection';

export interface RebuildResult {
  readonly events: number;
  readonly applied: number;
  readonly seconds: number;
}

/**
 * Replays the run event topic from offset 0 into `target` (fresh, migrated tables) with the same
 * projection code the live projector runs, up to the high watermarks read at start.
 * Reads with plain partition assignment and commits nothing, so no consumer group is touched.
 */
export async function rebuildProjections(
  brokers: string[],
  target: DataSource,
  namespace = '',
): Promise<RebuildResult> {
  const started = Date.now();
  let events = 0;
  let applied = 0;
  await replayTopic(brokers, namespace, async (event) => {
    events++;
    if (await target.transaction((m) => applyRunEvent(m, event))) applied++;
  });
  return { events, applied, seconds: (Date.now() - started) / 1000 };
}

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
export async function repairBrokenRuns(brokers: string[], live: DataSource, namespace = ''): Promise<RepairResult> {
  const started = Date.now();
  const broken = new Set(
    (await live.query<{ run_id: string }[]>('SELECT run_id FROM runs WHERE projection_error IS NOT NULL')).map(
      (r) => r.run_id,
    ),
  );
  const failed = new Set<string>();
  let events = 0;
  let applied = 0;
  if (broken.size > 0) {
    await replayTopic(brokers, namespace, async (event: RunEventDoc) => {
      if (!broken.has(event.runId) || failed.has(event.runId)) return;
      events++;
      try {
        const moved = await live.transaction((m) => applyRunEvents(m, [event], { repair: true }));
        applied += moved.length;
      } catch {
        failed.add(event.runId);
      }
    });
  }
  const repaired = [...broken].filter((runId) => !failed.has(runId));
  for (const runId of repaired) await live.transaction((m) => clearProjectionBroken(m, runId));
  return { events, applied, seconds: (Date.now() - started) / 1000, repaired, stillBroken: [...failed] };
}

/** Reads the run event topic from offset 0 up to the high watermarks read at start, in order per partition. */
async function replayTopic(
  brokers: string[],
  namespace: string,
  onEvent: (event: RunEventDoc) => Promise<void>,
): Promise<void> {
  const topic = namespace ? `${namespace}.${Topics.runEvents}` : Topics.runEvents;
  const kafka = new Kafka({ clientId: 'openwop-rebuild', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const watermarks = await admin.fetchTopicOffsets(topic).catch(() => []);
  await admin.disconnect();
  const pending = new Map(
    watermarks.filter((w) => Number(w.high) > Number(w.low)).map((w) => [w.partition, Number(w.high)]),
  );
  if (pending.size === 0) return;
  const consumer = kafka.consumer({ groupId: `openwop-rebuild-${process.pid}-${Date.now()}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          const high = pending.get(batch.partition);
          if (high === undefined) return;
          for (const message of batch.messages) {
            if (Number(message.offset) >= high) break;
            await onEvent(assertRunEvent(JSON.parse(message.value?.toString() ?? 'null')));
            if (Number(message.offset) === high - 1) pending.delete(batch.partition);
          }
          await payload.heartbeat();
          if (pending.size === 0) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
}

const TABLES = {
  run_events: 'SELECT event_id, run_id, sequence, type, node_id, doc FROM run_events ORDER BY run_id, sequence',
  pending_interrupts:
    'SELECT interrupt_id, run_id, node_id, tenant, workflow_id, kind, key, data, timeout_ms, requested_at FROM pending_interrupts ORDER BY interrupt_id',
  runs: 'SELECT run_id, tenant, workflow_id, status, current_node_id, last_sequence, snapshot, created_at, updated_at FROM runs ORDER BY run_id',
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
