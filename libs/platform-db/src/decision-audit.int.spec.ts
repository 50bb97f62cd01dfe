import type { DataSource } from 'typeorm';
import { Topics } from '@openwop/contracts';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import { DecisionProjection } from './decision-projection';
import { holdWrite } from './held-writes';
import { appendToOutbox, holdAppends, writeHeldAppends } from './outbox';
import { transaction } from './transaction';

/**
 * ADR 0039: in one process the audit facts a decision appends are chained in its own transaction,
 * by the audit log's writer, with no outbox row; a writer that fails leaves them to the consumer.
 */
describe('audit facts written in the deciding transaction (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let failWriter = false;
  let unregister: (() => void)[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('decision_audit');
    ds = await openDatabase({ url: db.url });
    await ds.query('CREATE TABLE audit_probe (fact text PRIMARY KEY)');
    const inDecision = DecisionProjection.bind(ds);
    unregister = [
      inDecision.register(async () => []),
      inDecision.registerAuditWriter(async (m, facts) => {
        if (failWriter) throw new Error('the chain is unavailable');
        await holdWrite(m, {
          sql: 'INSERT INTO audit_probe (fact) SELECT f->>0 FROM jsonb_array_elements($1::jsonb) AS f',
          params: [JSON.stringify(facts.map((f) => [(f as { factId: string }).factId]))],
          tables: ['audit_probe'],
        });
      }),
    ];
  });
  afterAll(async () => {
    for (const f of unregister) f();
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    failWriter = false;
    await ds.query('DELETE FROM audit_probe');
    await ds.query('DELETE FROM outbox');
  });

  const decide = (id: string) =>
    transaction(ds, async (m) => {
      holdAppends(m);
      await appendToOutbox(m, [
        { topic: Topics.auditFacts, key: 'tenant-a', value: { factId: `fact-${id}` } },
        { topic: 'run.events.test', key: 'run-1', value: { id } },
      ]);
      return writeHeldAppends(m, { consumer: 'decision-audit-test', messageId: id, reply: { ok: true } });
    });

  it('chains the facts in the decision’s transaction and puts no audit row in the outbox', async () => {
    await expect(decide('d1')).resolves.toBe(true);
    expect(await ds.query('SELECT fact FROM audit_probe')).toEqual([{ fact: 'fact-d1' }]);
    expect(await ds.query('SELECT topic FROM outbox ORDER BY id')).toEqual([{ topic: 'run.events.test' }]);
  });

  it('leaves the facts to the audit topic when the writer fails: the decision stands', async () => {
    failWriter = true;
    await expect(decide('d2')).resolves.toBe(true);
    expect(await ds.query('SELECT fact FROM audit_probe')).toEqual([]);
    expect(
      (await ds.query<{ topic: string }[]>('SELECT topic FROM outbox ORDER BY id')).map((r) => r.topic),
    ).toEqual([Topics.auditFacts, 'run.events.test']);
  });

  it('leaves them to the audit topic outside a transaction that may project', async () => {
    await ds.transaction(async (m) => {
      await appendToOutbox(m, [{ topic: Topics.auditFacts, key: 'tenant-a', value: { factId: 'fact-d3' } }]);
    });
    expect(await ds.query('SELECT fact FROM audit_probe')).toEqual([]);
    expect(await ds.query('SELECT topic FROM outbox')).toEqual([{ topic: Topics.auditFacts }]);
  });
});
