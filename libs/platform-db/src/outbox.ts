import type { DataSource, EntityManager } from 'typeorm';
import { activeTraceHeaders, detachedFromTrace, type TraceHeaders } from '@openwop/observability';
import { assertBusMessageSize, Topics, versionedCommand, type CommandEnvelope } from '@openwop/contracts';
import { DecisionProjection } from './decision-projection';
import { GroupedCalls } from './grouped-calls';
import { sendWithHeldWrites, takeHeldWrites } from './held-writes';
import { chunksWithinParameterLimit, valuesTuples } from './parameter-chunks';
import { transaction } from './transaction';

export interface OutboxMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Rows one transaction appended, kept so they can be published right after it commits. */
interface Appended {
  readonly ids: readonly string[];
  readonly messages: readonly {
    topic: string;
    key: string;
    value: unknown;
    headers: Record<string, string>;
  }[];
  /** Older rows of the same keys were still waiting: only the relay, in id order, may publish these. */
  readonly behind: boolean;
}

/** What each open transaction (by its entity manager) appended; see {@link OutboxRelay.transaction}. */
const appendedBy = new WeakMap<EntityManager, Appended[]>();

/**
 * Published rows whose delete rides the closing outbox statement of a transaction of the relay
 * ({@link OutboxRelay.transaction}): the relay's, per open transaction.
 */
const deletesRidingOn = new WeakMap<EntityManager, PublishedDeletes>();

/** Ids of rows published but not yet deleted, whose delete may ride another statement. */
class PublishedDeletes {
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

/** An appended message with the trace context that was active when it was appended. */
export interface TracedMessage {
  readonly message: OutboxMessage;
  readonly trace: TraceHeaders;
}

/** Appends a decision holds back, to write them with its dedupe record; see {@link holdAppends}. */
const heldBy = new WeakMap<EntityManager, TracedMessage[]>();

/**
 * Appends messages to the outbox inside the caller's transaction: they publish iff it commits.
 * Each row keeps the active trace context, which the relay re-attaches when it publishes.
 * The same statement notes whether older rows of the same keys are still waiting, so a direct
 * publish after commit ({@link OutboxRelay.transaction}) never overtakes them. While the
 * transaction holds its appends ({@link holdAppends}), they are kept for its last statement.
 */
export async function appendToOutbox(
  manager: EntityManager,
  messages: readonly OutboxMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  const trace = activeTraceHeaders();
  const traced = messages.map((message) => ({ message: versionedOnCommandTopic(message), trace }));
  const held = heldBy.get(manager);
  if (held) held.push(...traced);
  else await writeAppends(manager, traced, [], []);
}

/** The topics whose values are command envelopes: each is written with the current envelope version (ADR 0031). */
const COMMAND_TOPICS: ReadonlySet<string> = new Set([
  Topics.engineCommands,
  Topics.interruptCommands,
  Topics.tokenCommands,
]);

/** A command bound for a command topic, stamped with the current envelope version; anything else as it is. */
function versionedOnCommandTopic(message: OutboxMessage): OutboxMessage {
  if (!COMMAND_TOPICS.has(message.topic) || typeof message.value !== 'object' || message.value === null)
    return message;
  return { ...message, value: versionedCommand(message.value as CommandEnvelope) };
}

/**
 * From now on, what the transaction of `manager` appends is kept in memory, to be written by
 * {@link writeHeldAppends} together with the decision's dedupe record: one statement instead of two.
 */
export function holdAppends(manager: EntityManager): void {
  heldBy.set(manager, []);
}

/** The record that a consumer decided a message, with its reply (`processed_messages`). */
export interface DecisionRecord {
  readonly consumer: string;
  readonly messageId: string;
  readonly reply: unknown;
}

/**
 * Writes the appends held since {@link holdAppends} and `record`, in one statement, and stops
 * holding. Returns false, having written nothing that the caller may keep, when the record was taken
 * (the message was decided before): the caller must roll back.
 */
export async function writeHeldAppends(manager: EntityManager, record: DecisionRecord): Promise<boolean> {
  const { recorded } = await writeHeldDecisions(manager, [record], []);
  return recorded[0] === true;
}

/** What {@link writeHeldDecisions} found. */
export interface WrittenDecisions {
  /** Per record, in order: inserted (false: it was taken, the message was decided before). */
  readonly recorded: readonly boolean[];
  /** An outbox row of one of the `chained` topics and keys was pending before this statement (ADR 0038). */
  readonly chainBehind: boolean;
}

/** A topic and key of a command decided through (ADR 0038). */
export interface TopicKey {
  readonly topic: string;
  readonly key: string;
}

/**
 * Like {@link writeHeldAppends} for a transaction that decided several commands (its own and those
 * decided through it, ADR 0038): the held appends and every record in one statement, which also
 * tells whether any outbox row of a `chained` topic and key was pending (the statement cannot see
 * the transaction's own rows). The caller rolls back unless every record was inserted.
 */
export async function writeHeldDecisions(
  manager: EntityManager,
  records: readonly DecisionRecord[],
  chained: readonly TopicKey[],
): Promise<WrittenDecisions> {
  const held = heldBy.get(manager) ?? [];
  heldBy.delete(manager);
  return writeAppends(manager, held, records, chained);
}

/** The appends the transaction of `manager` holds, in order (mutable: decided-through takes some out). */
export function heldAppendsOf(manager: EntityManager): TracedMessage[] | undefined {
  return heldBy.get(manager);
}

/**
 * Writes what the transaction of `manager` held (see {@link holdAppends}) in one statement, with no
 * dedupe record, and stops holding: a batch of decisions that are not a consumer's (the timers).
 */
export async function flushHeldAppends(manager: EntityManager): Promise<void> {
  const held = heldBy.get(manager) ?? [];
  heldBy.delete(manager);
  if (held.length > 0) await writeAppends(manager, held, [], []);
}

/** Stops holding appends without writing them (the transaction is rolling back). */
export function dropHeldAppends(manager: EntityManager): void {
  heldBy.delete(manager);
}

/**
 * One statement: the outbox rows of `traced` (noted for the direct publish) and the dedupe
 * `records`, each inserted unless taken; with `chained`, whether outbox rows of those topics and
 * keys were pending. A batch past the bind parameter limit is written in chunks, in order, in the caller's
 * transaction: the first chunk's statement carries the records and the checks, the others only
 * their rows.
 */
async function writeAppends(
  manager: EntityManager,
  appended: readonly TracedMessage[],
  records: readonly DecisionRecord[],
  chained: readonly TopicKey[],
): Promise<WrittenDecisions> {
  const traced = await withoutAuditWrittenHere(manager, appended);
  if (traced.length === 0) {
    if (records.length === 0) return { recorded: [], chainBehind: false };
    const row = await insertOutboxRows(manager, [], records, chained, false);
    return { recorded: recordedOf(records, row?.recorded), chainBehind: row?.chain_behind ?? false };
  }
  const ids: string[] = [];
  let behind = true;
  let written: WrittenDecisions = { recorded: [], chainBehind: false };
  // 6 parameters a row; the first statement adds the keys and chained arrays and 3 per record.
  for (const [n, chunk] of chunksWithinParameterLimit(
    traced,
    OUTBOX_ROW_PARAMS,
    3 + 3 * records.length,
  ).entries()) {
    const row = await insertOutboxRows(
      manager,
      chunk,
      n === 0 ? records : [],
      n === 0 ? chained : [],
      n === 0,
    );
    ids.push(...(row?.ids ?? []).map(String));
    if (n === 0) {
      behind = row?.behind ?? true;
      written = { recorded: recordedOf(records, row?.recorded), chainBehind: row?.chain_behind ?? false };
      // the caller rolls back: the rest need not be written
      if (written.recorded.some((r) => !r) || written.chainBehind) break;
    }
  }
  const list = appendedBy.get(manager) ?? [];
  list.push({
    ids,
    messages: traced.map(({ message: m, trace }) => ({
      topic: m.topic,
      key: m.key,
      value: m.value,
      headers: withTrace(m.headers ?? {}, trace),
    })),
    behind,
  });
  appendedBy.set(manager, list);
  return written;
}

/**
 * In one process, the audit facts among `traced` are chained in the transaction itself, by the
 * audit log's writer (ADR 0039, {@link DecisionProjection.writeAudit}): they need no outbox row.
 * Elsewhere, or in a transaction that may not project, they stay in the outbox for the consumer.
 */
async function withoutAuditWrittenHere(
  manager: EntityManager,
  traced: readonly TracedMessage[],
): Promise<readonly TracedMessage[]> {
  const facts = traced.filter((t) => t.message.topic === Topics.auditFacts);
  if (facts.length === 0) return traced;
  const written = await DecisionProjection.of(manager)?.writeAudit(
    manager,
    facts.map((t) => t.message.value),
  );
  return written ? traced.filter((t) => t.message.topic !== Topics.auditFacts) : traced;
}

/** Per record, whether the statement inserted it (`inserted`: `consumer/message id` of those it did). */
function recordedOf(
  records: readonly DecisionRecord[],
  inserted: readonly string[] | null | undefined,
): boolean[] {
  const set = new Set(inserted ?? []);
  return records.map((r) => set.has(`${r.consumer}/${r.messageId}`));
}

const OUTBOX_ROW_PARAMS = 6;

interface InsertedRow {
  ids: (string | number)[] | null;
  behind: boolean;
  recorded: string[] | null;
  chain_behind: boolean;
}

/**
 * One statement: a multi-row insert of outbox rows (none, for a decision that appended nothing);
 * with `checkBehind`, whether older rows of their keys wait; the `records`; and whether rows of
 * `chained` topics and keys wait.
 */
async function insertOutboxRows(
  manager: EntityManager,
  traced: readonly TracedMessage[],
  records: readonly DecisionRecord[],
  chained: readonly TopicKey[],
  checkBehind: boolean,
): Promise<InsertedRow | undefined> {
  const params: unknown[] = [];
  for (const { message: m, trace } of traced) {
    const value = JSON.stringify(m.value);
    // A row the broker would refuse for good would hold back every row after it: refuse it here,
    // inside the decision's transaction, so the decision is not applied.
    assertBusMessageSize(m.topic, m.key, value, m.headers);
    params.push(
      m.topic,
      m.key,
      value,
      JSON.stringify(m.headers ?? {}),
      trace.traceparent ?? null,
      trace.tracestate ?? null,
    );
  }
  const ctes: string[] = [];
  // Rows this process published since the last such statement are deleted here, not on their own.
  const deleting = deletesRidingOn.get(manager)?.take(manager) ?? [];
  let notDeleting = '';
  if (deleting.length > 0) {
    params.push(deleting);
    ctes.push(`deleted AS (DELETE FROM outbox WHERE id = ANY($${params.length}::bigint[]))`);
    notDeleting = ` AND NOT (o.id = ANY($${params.length}::bigint[]))`;
  }
  let ids = 'NULL::bigint[]';
  let behind = 'true';
  if (traced.length > 0) {
    const rows = valuesTuples(traced.length, ['', '', '::jsonb', '::jsonb', '', '']);
    ctes.push(`appended AS (
       INSERT INTO outbox (topic, key, value, headers, traceparent, tracestate) VALUES ${rows} RETURNING id)`);
    ids = '(SELECT array_agg(id ORDER BY id) FROM appended)';
    if (checkBehind) {
      params.push([...new Set(traced.map((t) => t.message.key))]);
      behind = `EXISTS (SELECT 1 FROM outbox o WHERE o.key = ANY($${params.length}::text[]) AND o.id < (SELECT min(id) FROM appended)${notDeleting})`;
    }
  }
  let recorded = 'NULL::text[]';
  if (records.length > 0) {
    const tuples = records.map((r) => {
      params.push(r.consumer, r.messageId, JSON.stringify(r.reply));
      const b = params.length - 3;
      return `($${b + 1}, $${b + 2}, $${b + 3}::jsonb)`;
    });
    ctes.push(`recorded AS (INSERT INTO processed_messages (consumer, message_id, reply) VALUES ${tuples.join(', ')}
       ON CONFLICT DO NOTHING RETURNING consumer, message_id)`);
    recorded = `(SELECT array_agg(consumer || '/' || message_id) FROM recorded)`;
  }
  let chainBehind = 'false';
  if (chained.length > 0) {
    // Any pending row of these topics and keys (the statement does not see the rows it inserts itself).
    params.push(
      chained.map((c) => c.topic),
      chained.map((c) => c.key),
    );
    chainBehind = `EXISTS (SELECT 1 FROM outbox o JOIN unnest($${params.length - 1}::text[], $${params.length}::text[]) AS c (topic, key)
       ON o.key = c.key AND o.topic = c.topic WHERE true${notDeleting})`;
  }
  // The decision's other writes, held until now, go in this statement too (ADR 0039).
  const held = await takeHeldWrites(manager, params);
  ctes.push(...held);
  if (ctes.length === 0) ctes.push('nothing AS (SELECT 1)');
  const [row] = await sendWithHeldWrites<InsertedRow[]>(
    manager,
    `WITH ${ctes.join(', ')}
     SELECT ${ids} AS ids, ${behind} AS behind, ${recorded} AS recorded, ${chainBehind} AS chain_behind`,
    params,
    held.length > 0,
  );
  return row;
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
  private deleteTimer: NodeJS.Timeout | null = null;

  /** Deletes of published rows no transaction took; those asked for while one runs go together. */
  private readonly deletes: GroupedCalls<string>;

  constructor(
    private readonly ds: DataSource,
    private readonly publish: Publish,
    private readonly options: { sweepMs?: number; batchSize?: number; onError?: (e: unknown) => void } = {},
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
   * Runs `work` in a transaction (see {@link transaction}) and, once it committed, publishes what it appended to the outbox
   * before resolving (see {@link publishAppended}), so what the caller does next comes after it.
   */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const used: EntityManager[] = [];
    let result: T;
    try {
      result = await transaction(this.ds, (manager) => {
        used.push(manager);
        deletesRidingOn.set(manager, this.published);
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
    if (last) await this.publishAppended(last);
    return result;
  }

  /**
   * Publishes what the transaction of `manager` appended, right after it committed, without
   * another transaction: one send per topic run, then one delete. Rows that must wait for older
   * ones of the same key, or a failed send, are left to the relay (kicked here). Never throws: the
   * rows are committed, so the relay's sweep publishes them whatever happens here.
   */
  private async publishAppended(manager: EntityManager): Promise<void> {
    const appended = appendedBy.get(manager);
    appendedBy.delete(manager);
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
        this.published.add(appended.flatMap((a) => a.ids));
        this.deleteSoon();
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

function withTrace(
  headers: Readonly<Record<string, string>>,
  trace: { readonly traceparent?: string | undefined; readonly tracestate?: string | undefined },
): Record<string, string> {
  if (trace.traceparent === undefined) return { ...headers };
  const out: Record<string, string> = { ...headers, traceparent: trace.traceparent };
  if (trace.tracestate !== undefined) out.tracestate = trace.tracestate;
  return out;
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
