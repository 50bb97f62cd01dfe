import type { DataSource, EntityManager } from 'typeorm';
import type { CommandReply } from '@openwop/contracts';
import type { OutboxRelay } from './outbox';

/**
 * Claims `messageId` for `consumer` inside the caller's transaction. Returns `{ fresh: true }` the
 * first time; on a redelivery returns the reply stored by the first processing. A concurrent
 * duplicate waits on the row lock until the first transaction ends.
 */
export async function claimMessage(
  manager: EntityManager,
  consumer: string,
  messageId: string,
): Promise<{ fresh: true } | { fresh: false; reply: unknown }> {
  const inserted = await manager.query<unknown[]>(
    `INSERT INTO processed_messages (consumer, message_id) VALUES ($1, $2)
     ON CONFLICT DO NOTHING RETURNING message_id`,
    [consumer, messageId],
  );
  if (inserted.length === 1) return { fresh: true };
  const rows = await manager.query<{ reply: unknown }[]>(
    'SELECT reply FROM processed_messages WHERE consumer = $1 AND message_id = $2',
    [consumer, messageId],
  );
  return { fresh: false, reply: rows[0]?.reply ?? null };
}

/** Stores the reply of a claimed message, so a redelivery answers the same. */
export async function storeReply(
  manager: EntityManager,
  consumer: string,
  messageId: string,
  reply: unknown,
): Promise<void> {
  await manager.query(
    'UPDATE processed_messages SET reply = $3::jsonb WHERE consumer = $1 AND message_id = $2',
    [consumer, messageId, JSON.stringify(reply)],
  );
}

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

/**
 * Decides a command exactly once, in one transaction with its effects: claims the command id for
 * `consumer` (a redelivery gets the reply stored the first time), runs `decide`, and stores its
 * reply. A refusal (`ok: false`) rolls everything back, the claim included, so a refused command
 * writes nothing. Transient failures propagate, so the bus retries. With `relay`, what the decision
 * appended to the outbox is published right after the commit, before this resolves (see
 * {@link OutboxRelay.publishAppended}), so a consumer's next command of the key comes after it.
 */
export async function decideOnce(
  ds: DataSource,
  consumer: string,
  commandId: string,
  decide: (manager: EntityManager) => Promise<CommandReply>,
  relay?: OutboxRelay,
): Promise<CommandReply> {
  let used: EntityManager | undefined;
  try {
    const decided = await ds.transaction(async (manager) => {
      used = manager;
      const claim = await claimMessage(manager, consumer, commandId);
      if (!claim.fresh) return claim.reply as CommandReply;
      const reply = await decide(manager);
      if (!reply.ok) throw new Refusal(reply);
      await storeReply(manager, consumer, commandId, reply);
      return reply;
    });
    if (relay && used) await relay.publishAppended(used);
    return decided;
  } catch (e) {
    if (e instanceof Refusal) return e.reply;
    throw e;
  }
}
