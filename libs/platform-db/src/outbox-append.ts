import type { EntityManager } from 'typeorm';
import { activeTraceHeaders, type TraceHeaders } from '@openwop/observability';
import { assertBusMessageSize, Topics, versionedCommand, type CommandEnvelope } from '@openwop/contracts';
import { DecisionProjection } from './decision-projection';
import { sendWithHeldWrites, takeHeldWrites } from './held-writes';
import { deletesRidingOn } from './outbox-published-deletes';
import { chunksWithinParameterLimit, valuesTuples } from './parameter-chunks';

/**
 * Appending to the outbox inside a decision's transaction: the rows, the dedupe records and the
 * held writes in the decision's closing statement (ADR 0001, 0016, 0039). The relay that publishes
 * them is `outbox-relay.ts`.
 */
export interface OutboxMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Rows one transaction appended, kept so they can be published right after it commits. */
export interface Appended {
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

/** What the transaction of `manager` appended, taken (for the publish right after its commit). */
export function takeAppended(manager: EntityManager): Appended[] | undefined {
  const appended = appendedBy.get(manager);
  appendedBy.delete(manager);
  return appended;
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

/** `headers` with the trace context `trace`, when it has one. */
export function withTrace(
  headers: Readonly<Record<string, string>>,
  trace: { readonly traceparent?: string | undefined; readonly tracestate?: string | undefined },
): Record<string, string> {
  if (trace.traceparent === undefined) return { ...headers };
  const out: Record<string, string> = { ...headers, traceparent: trace.traceparent };
  if (trace.tracestate !== undefined) out.tracestate = trace.tracestate;
  return out;
}
