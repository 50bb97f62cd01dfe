import type { DataSource } from 'typeorm';
import { lineText, verifyAuditExport, type AuditFact } from '@openwop/audit-chain';
import { openDatabase, transaction } from '@openwop/platform-db';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { appendFacts, readFact } from './audit-log.store';

const fact = (tenant: string, n: number): AuditFact => ({
  factId: `${tenant}:f${n}`,
  tenant,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  who: 'alice',
  keyId: 'key-a',
  route: 'api',
  action: 'resolve',
  runId: `run-${n}`,
  outcome: 'resolved',
  answerAction: 'accept',
});

describe('the audit log store (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase('audit');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const append = (facts: readonly AuditFact[]) => transaction(ds, (m) => appendFacts(m, facts));
  const exported = async (tenant: string): Promise<string> => {
    const rows = await ds.query<
      { seq: string; at: Date; record: AuditFact; prev_hash: string; hash: string }[]
    >(
      'SELECT seq::text AS seq, at, record, prev_hash, hash FROM audit_records WHERE tenant = $1 ORDER BY audit_records.seq',
      [tenant],
    );
    return rows
      .map((r) =>
        lineText({
          tenant,
          seq: Number(r.seq),
          at: r.record.at,
          record: r.record,
          prev_hash: r.prev_hash,
          hash: r.hash,
        }),
      )
      .join('\n');
  };

  it('chains each tenant from seq 1, records a redelivered fact once, and the stored chain verifies', async () => {
    expect(await append([fact('a', 1), fact('b', 1), fact('a', 2)])).toBe(3);
    expect(await append([fact('a', 2), fact('a', 3), fact('a', 3)])).toBe(1);
    const a = verifyAuditExport(await exported('a'));
    expect(a).toMatchObject({ ok: true, records: 3, firstSeq: 1, lastSeq: 3 });
    expect(verifyAuditExport(await exported('b'))).toMatchObject({ ok: true, records: 1 });
    const [head] = await ds.query<{ seq: string; hash: string }[]>(
      "SELECT seq::text AS seq, hash FROM audit_heads WHERE tenant = 'a'",
    );
    expect(head).toEqual({ seq: '3', hash: a.lastHash });
  });

  it('keeps one chain gapless when writers append to the same tenant at once (the head row lock)', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, w) => append([fact('c', w * 2 + 1), fact('c', w * 2 + 2)])),
    );
    const result = verifyAuditExport(await exported('c'));
    expect(result.findings).toEqual([]);
    expect(result).toMatchObject({ ok: true, records: 16, firstSeq: 1, lastSeq: 16 });
  });

  it('refuses to update or delete a record (append-only)', async () => {
    await expect(
      ds.query("UPDATE audit_records SET record = '{}'::jsonb WHERE tenant = 'a'"),
    ).rejects.toThrow(/append-only/);
    await expect(ds.query("DELETE FROM audit_records WHERE tenant = 'a'")).rejects.toThrow(/append-only/);
    expect(verifyAuditExport(await exported('a'))).toMatchObject({ ok: true, records: 3 });
  });

  it('reads only well-formed facts off the topic', () => {
    expect(readFact(fact('a', 1))).toEqual(fact('a', 1));
    expect(readFact({ ...fact('a', 1), route: 'sideways' })).toMatch(/route sideways/);
    expect(readFact({ ...fact('a', 1), at: 'yesterday' })).toBe('at is not a timestamp');
    expect(readFact({ ...fact('a', 1), tenant: '' })).toBe('tenant is not a non-empty string');
    expect(readFact([])).toBe('not an object');
  });
});
