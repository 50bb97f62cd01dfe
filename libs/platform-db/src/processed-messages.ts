import type { DataSource, EntityManager } from 'typeorm';
import type { CommandReply } from '@openwop/contracts';
import { dropHeldAppends, holdAppends, writeHeldAppends, type OutboxRelay } from './outbox';

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
 */
export async function decideOnce(
  ds: DataSource,
  consumer: string,
  commandId: string,
  decide: (manager: EntityManager) => Promise<CommandReply>,
  relay?: OutboxRelay,
): Promise<CommandReply> {
  const transaction = <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> =>
    relay ? relay.transaction(work) : ds.transaction(work);
  try {
    return await transaction(async (manager) => {
      holdAppends(manager);
      try {
        const reply = await decide(manager);
        if (!reply.ok) throw new Refusal(reply);
        const recorded = await writeHeldAppends(manager, { consumer, messageId: commandId, reply });
        if (!recorded) throw new AlreadyDecided();
        return reply;
      } finally {
        dropHeldAppends(manager);
      }
    });
  } catch (e) {
    // Whatever this attempt did, refused or failed on, a decision made before stands.
    const first = await storedReply(ds, consumer, commandId);
    if (first !== undefined) return first;
    if (e instanceof Refusal) return e.reply;
    throw e;
  }
}
