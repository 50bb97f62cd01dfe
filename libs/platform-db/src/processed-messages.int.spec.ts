import type { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import { claimMessage, pruneProcessedMessages, storeReply } from './processed-messages';

describe('processed messages (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('processed_messages');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('claims once, answers a redelivery with the stored reply', async () => {
    const first = await ds.transaction(async (m) => {
      const claim = await claimMessage(m, 'c', 'm1');
      await storeReply(m, 'c', 'm1', { ok: true, data: 1 });
      return claim;
    });
    expect(first).toEqual({ fresh: true });
    const again = await ds.transaction((m) => claimMessage(m, 'c', 'm1'));
    expect(again).toEqual({ fresh: false, reply: { ok: true, data: 1 } });
  });

  it('prunes only rows older than the retention window', async () => {
    await ds.query(
      `INSERT INTO processed_messages (consumer, message_id, processed_at) VALUES
       ('c', 'old', now() - interval '8 days'), ('c', 'recent', now() - interval '1 hour')`,
    );
    const pruned = await pruneProcessedMessages(ds, 7 * 24 * 3_600_000);
    expect(pruned).toBe(1);
    const left = await ds.query<{ message_id: string }[]>(
      "SELECT message_id FROM processed_messages WHERE message_id IN ('old', 'recent')",
    );
    expect(left.map((r) => r.message_id)).toEqual(['recent']);
  });
});
