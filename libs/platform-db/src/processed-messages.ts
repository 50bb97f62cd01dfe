import type { DataSource, EntityManager } from 'typeorm';
import type { CommandReply, ProjectedRunMark } from '@openwop/contracts';
import { ChainFailed, decideHeldThrough, type DecideThrough } from './decided-through';
import { ProjectionFailedInDecision, projectedIn, runsProjectedIn } from './decision-projection';
import { dropHeldAppends, heldAppendsOf, holdAppends, writeHeldDecisions, type OutboxRelay } from './outbox';

/**
 * Deletes dedupe rows older than `retentionMs`. The window must outlast how long a message can be
 * redelivered (the command topics' retention); past it the table would only grow.
 */
export async function pruneProcessedMessages(
  ds: { query: EntityManager['query'] },
  retentionMs: number,
): Promise<number> {
  const [row] = await ds.query<{ n: number }[]>(
    `WITH pruned AS (
       DELETE FROM processed_messages WHERE processed_at < now() - ($1::bigint * interval '1 millisecond') RETURNING 1)
     SELECT count(*)::int AS n FROM pruned`,
    [retentionMs],
  );
  return row?.n ?? 0;
}

/** Carries a refusal out of the transaction so that it rolls back. */
class Refusal extends Error {
  constructor(readonly reply: CommandReply) {
    super('refused');
  }
}

/** The command was decided before (its dedupe row exists): this attempt rolls back. */
class AlreadyDecided extends Error {
  constructor() {
    super('already decided');
  }
}

/** The reply stored when `messageId` was first decided by `consumer`, if it was. */
export async function storedReply(
  ds: { query: EntityManager['query'] },
  consumer: string,
  messageId: string,
): Promise<CommandReply | undefined> {
  const rows = await ds.query<{ reply: CommandReply | null }[]>(
    'SELECT reply FROM processed_messages WHERE consumer = $1 AND message_id = $2',
    [consumer, messageId],
  );
  return rows.length === 0 ? undefined : (rows[0]!.reply ?? undefined);
}

/**
 * Decides a command exactly once, in one transaction with its effects: runs `decide`, then records
 * the command id for `consumer` with its reply. The record comes last, in the statement that also
 * writes the outbox rows `decide` appended (held until then, see `holdAppends`), so the dedupe costs
 * no statement of its own when the decision appends, and one when it does not. A command decided
 * before (a redelivery, or a duplicate decided concurrently by another instance, whose insert this
 * one waits on) finds the record taken, rolls back everything it did, and answers the stored reply;
 * so does an attempt that refused or failed because the first decision already changed the state.
 * A refusal (`ok: false`) of a command never decided rolls back and writes nothing. Transient failures propagate, so the
 * bus retries. With `relay`, what the decision appended to the outbox is published right after the
 * commit, before this resolves (see {@link OutboxRelay.transaction}), so a consumer's next
 * command of the key comes after it.
 *
 * With `through` (the one-process host, ADR 0038), the commands the decision sends to seams of
 * this process are decided in the same transaction, each with its own record, in the same closing
 * statement ({@link decideHeldThrough}); if one of them refuses or throws, or an ordering check
 * fails, everything rolls back and the command is decided once more without chaining, so its
 * commands go through the outbox and the bus as they would without `through`. A decision that
 * projected its events in the transaction (ADR 0039) while one of its commands to a seam of this
 * process still goes through the bus is taken again without projecting: its readers must not see
 * it before that command (an interrupt's open) is on the bus.
 */
export async function decideOnce(
  ds: DataSource,
  consumer: string,
  commandId: string,
  decide: (manager: EntityManager) => Promise<CommandReply>,
  relay?: OutboxRelay,
  through?: DecideThrough,
): Promise<CommandReply> {
  const transaction = <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> =>
    relay ? relay.transaction(work) : ds.transaction(work);
  const attempt = (chain: DecideThrough | undefined, release: (() => void)[]) =>
    transaction(async (manager) => {
      holdAppends(manager);
      try {
        const reply = await decide(manager);
        if (!reply.ok) throw new Refusal(reply);
        const chained = chain ? await decideHeldThrough(manager, chain, release) : [];
        if (
          through &&
          projectedIn(manager) &&
          heldAppendsOf(manager)?.some((t) => through.decided.decider(t.message.topic))
        ) {
          // A command to a module of this process goes through the bus (an interrupt's open not
          // decided through): readers must not see the decision's projection before it is on the
          // bus. Taken again without projecting (ADR 0039); the projector's consumer applies the
          // events once the relay published them, after the command.
          throw new ProjectionFailedInDecision('a command to a module of this process goes through the bus');
        }
        const answer = withProjectedRuns(reply, manager);
        const records = [{ consumer, messageId: commandId, reply: answer }, ...chained];
        const keys = chained.map((c) => c.message);
        const written = await writeHeldDecisions(manager, records, keys).catch((e: unknown) => {
          throw chained.length > 0 ? new ChainFailed('the closing statement failed', { cause: e }) : e;
        });
        if (!written.recorded[0]) throw new AlreadyDecided();
        if (chain && chained.length > 0) {
          if (written.recorded.some((r) => !r)) throw new ChainFailed('a chained command was decided before');
          if (written.chainBehind) throw new ChainFailed('an older outbox row of a chained key is pending');
          // After the statement's read of the outbox: a row the relay published since is on the bus now.
          if (chained.some((c) => chain.decided.unsettled(c.message.topic, c.message.key, chain.root))) {
            throw new ChainFailed('an older message of a chained key is on the bus');
          }
        }
        return answer;
      } finally {
        dropHeldAppends(manager);
      }
    });
  try {
    if (through) {
      // ADR 0038: decide through first; on any failure of the chain, decide again as if alone.
      const release: (() => void)[] = [];
      try {
        return await attempt(through, release);
      } catch (e) {
        if (!(e instanceof ChainFailed)) throw e;
      } finally {
        for (const free of release) free();
      }
    }
    return await attempt(undefined, []);
  } catch (e) {
    // Whatever this attempt did, refused or failed on, a decision made before stands.
    const first = await storedReply(ds, consumer, commandId);
    if (first !== undefined) return first;
    if (e instanceof Refusal) return e.reply;
    throw e;
  }
}

/**
 * `reply` marked with the runs its transaction projected (one process: the decision's own events and
 * those of what it decided through, ADR 0039), so the requester knows its read model holds them
 * without reading it back.
 */
function withProjectedRuns(reply: CommandReply, manager: EntityManager): CommandReply {
  if (!reply.ok) return reply;
  const runs = runsProjectedIn(manager);
  if (runs.length === 0) return reply;
  const projected: ProjectedRunMark[] = runs.map((r) => ({ runId: r.runId, lastSequence: r.sequence }));
  return { ...reply, projected };
}
