import { appendTo, EMPTY_HEAD, lineText, recordHash, type ChainHead } from './audit-chain';
import { GENESIS_HASH, type AuditFact, type AuditLine } from './audit-record';
import { verifyAuditExport } from './verify-chain';

function fact(n: number, tenant = 't1'): AuditFact {
  return {
    factId: `f${n}`,
    tenant,
    at: `2026-01-01T00:00:0${n % 10}.000Z`,
    who: 'alice',
    keyId: 'key-a',
    route: 'api',
    action: 'resolve',
    runId: `run-${n}`,
    answerAction: 'accept',
  };
}

function chain(count: number, tenant = 't1'): AuditLine[] {
  const lines: AuditLine[] = [];
  let head: ChainHead = EMPTY_HEAD;
  for (let n = 1; n <= count; n++) {
    const line = appendTo(head, tenant, fact(n, tenant));
    lines.push(line);
    head = { seq: line.seq, hash: line.hash };
  }
  return lines;
}

const file = (lines: readonly AuditLine[]): string => `${lines.map(lineText).join('\n')}\n`;
const kinds = (text: string, partial = false): string[] =>
  verifyAuditExport(text, { partial }).findings.map((f) => f.kind);

describe('audit chain', () => {
  it('starts on the genesis hash, numbers records from 1 and links each to the one before', () => {
    const [a, b] = chain(2);
    expect(a).toMatchObject({ seq: 1, prev_hash: GENESIS_HASH, tenant: 't1', at: a!.record.at });
    expect(b).toMatchObject({ seq: 2, prev_hash: a!.hash });
    expect(a!.hash).toBe(recordHash(1, GENESIS_HASH, a!.record));
  });

  it('hashes the record by value, not by key order (jsonb reorders keys)', () => {
    const [a] = chain(1);
    const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(a!.record).reverse())));
    expect(recordHash(1, GENESIS_HASH, reordered)).toBe(a!.hash);
  });
});

describe('verifyAuditExport', () => {
  it('accepts an intact export and reports its extent and last hash', () => {
    const lines = chain(5);
    expect(verifyAuditExport(file(lines))).toEqual({
      ok: true,
      records: 5,
      tenant: 't1',
      firstSeq: 1,
      lastSeq: 5,
      lastHash: lines[4]!.hash,
      findings: [],
    });
  });

  it('accepts an empty export', () => {
    expect(verifyAuditExport('')).toMatchObject({ ok: true, records: 0, findings: [] });
  });

  it('finds an edited record, by seq and line, and nothing else', () => {
    const lines = chain(4);
    const text = file(lines)
      .split('\n')
      .map((l, i) => (i === 2 ? l.replace('"who":"alice"', '"who":"mallory"') : l))
      .join('\n');
    expect(text).toContain('mallory');
    const edited = lines.map((l) => (l.seq === 3 ? { ...l, record: { ...l.record, who: 'mallory' } } : l));
    for (const t of [text, file(edited)]) {
      const result = verifyAuditExport(t);
      expect(result.ok).toBe(false);
      expect(result.findings).toEqual([expect.objectContaining({ kind: 'edited', seq: 3, line: 3 })]);
    }
  });

  it('finds an edit whose hash was recomputed: the next record no longer links to it', () => {
    const lines = chain(4);
    const forged = { ...lines[1]!.record, answerAction: 'reject' };
    const rehashed = lines.map((l) =>
      l.seq === 2 ? { ...l, record: forged, hash: recordHash(2, l.prev_hash, forged) } : l,
    );
    expect(verifyAuditExport(file(rehashed)).findings).toEqual([
      expect.objectContaining({ kind: 'broken-link', seq: 3 }),
    ]);
  });

  it('finds an edited "at" outside the hashed record', () => {
    const lines = chain(2).map((l) => (l.seq === 2 ? { ...l, at: '2030-01-01T00:00:00.000Z' } : l));
    expect(verifyAuditExport(file(lines)).findings).toEqual([
      expect.objectContaining({ kind: 'edited', seq: 2 }),
    ]);
  });

  it('finds a removed record in the middle, at the start, and several in a row', () => {
    const lines = chain(6);
    expect(verifyAuditExport(file(lines.filter((l) => l.seq !== 4))).findings).toEqual([
      expect.objectContaining({ kind: 'missing', fromSeq: 4, toSeq: 4, message: 'record 4 is missing' }),
    ]);
    expect(verifyAuditExport(file(lines.slice(1))).findings).toEqual([
      expect.objectContaining({ kind: 'missing', fromSeq: 1, toSeq: 1 }),
    ]);
    expect(verifyAuditExport(file(lines.filter((l) => l.seq < 2 || l.seq > 4))).findings).toEqual([
      expect.objectContaining({ kind: 'missing', fromSeq: 2, toSeq: 4 }),
    ]);
  });

  it('takes a partial export (after=N) from its first record on', () => {
    const lines = chain(6).slice(2);
    expect(kinds(file(lines), true)).toEqual([]);
    expect(kinds(file(lines))).toEqual(['missing']);
    expect(kinds(file(lines.filter((l) => l.seq !== 5)), true)).toEqual(['missing']);
  });

  it('finds reordered records and reports them as reordered, not missing or unlinked', () => {
    const lines = chain(5);
    const swapped = [lines[0]!, lines[2]!, lines[1]!, lines[3]!, lines[4]!];
    expect(verifyAuditExport(file(swapped)).findings).toEqual([
      expect.objectContaining({
        kind: 'reordered',
        seq: 2,
        line: 3,
        message: 'record 2 (line 3) comes after record 3 (line 2)',
      }),
    ]);
    expect(kinds(file([...lines].reverse()))).toEqual(['reordered', 'reordered', 'reordered', 'reordered']);
  });

  it('finds a duplicated record', () => {
    const lines = chain(3);
    expect(kinds(file([...lines, lines[2]!]))).toEqual(['duplicate']);
  });

  it('finds a record spliced in from another chain', () => {
    const mine = chain(3);
    const theirs = chain(3, 't2');
    expect(kinds(file([mine[0]!, theirs[1]!, mine[2]!]))).toEqual([
      'tenant-mismatch',
      'broken-link',
      'broken-link',
    ]);
    const sameTenantOtherChain = chain(3).map((l) =>
      l.seq === 2 ? appendTo({ seq: 1, hash: 'f'.repeat(64) }, 't1', fact(9)) : l,
    );
    expect(kinds(file(sameTenantOtherChain))).toEqual(['broken-link', 'broken-link']);
  });

  it('finds a first record that does not start on the genesis hash', () => {
    const [a] = chain(1);
    const moved = { ...a!, prev_hash: 'a'.repeat(64) };
    expect(kinds(file([{ ...moved, hash: recordHash(1, moved.prev_hash, moved.record) }]))).toEqual([
      'broken-link',
    ]);
  });

  it('reports malformed lines with their line number and ignores blank ones', () => {
    const lines = chain(2);
    const text = `${lineText(lines[0]!)}\n\nnot json\n{"seq":2}\n${lineText(lines[1]!)}\n`;
    expect(verifyAuditExport(text).findings).toEqual([
      { kind: 'malformed', line: 3, message: 'line 3: not JSON' },
      { kind: 'malformed', line: 4, message: 'line 4: no tenant' },
    ]);
  });
});
