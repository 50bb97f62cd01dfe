import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  appendTo,
  EMPTY_HEAD,
  lineText,
  type AuditFact,
  type AuditLine,
  type ChainHead,
} from '@openwop/audit-chain';
import { runCli } from '../cli';

async function wop(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(argv, {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: { WOP_URL: 'http://127.0.0.1:9', WOP_API_KEY: 'k' },
    cwd: resolve(__dirname, '../../../..'),
  });
  return { code, stdout: out, stderr: err };
}

function chain(count: number): AuditLine[] {
  const lines: AuditLine[] = [];
  let head: ChainHead = EMPTY_HEAD;
  for (let n = 1; n <= count; n++) {
    const record: AuditFact = {
      factId: `f${n}`,
      tenant: 't1',
      at: `2026-01-01T00:00:0${n}.000Z`,
      who: 'alice',
      route: 'api',
      action: 'resolve',
      runId: `r${n}`,
    };
    const line = appendTo(head, 't1', record);
    lines.push(line);
    head = line;
  }
  return lines;
}

describe('wop audit verify', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wop-audit-'));
  const file = (name: string, lines: readonly AuditLine[]): string => {
    const path = join(dir, name);
    writeFileSync(path, `${lines.map(lineText).join('\n')}\n`);
    return path;
  };
  let fetched: jest.SpyInstance;
  beforeEach(() => {
    fetched = jest.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('verify sends nothing'));
  });
  afterEach(() => {
    expect(fetched).not.toHaveBeenCalled();
    fetched.mockRestore();
  });

  it('exits 0 on an intact export and says how much verified', async () => {
    const lines = chain(3);
    const r = await wop(['audit', 'verify', file('ok.ndjson', lines)]);
    expect(r).toEqual({
      code: 0,
      stdout: `ok: 3 records verify (seq 1..3, tenant t1, last hash ${lines[2]!.hash})\n`,
      stderr: '',
    });
  });

  it('exits 1 naming each finding', async () => {
    const lines = chain(4);
    const edited = lines
      .map((l) => (l.seq === 2 ? { ...l, record: { ...l.record, who: 'mallory' } } : l))
      .filter((l) => l.seq !== 4);
    const r = await wop(['audit', 'verify', file('bad.ndjson', [edited[0]!, edited[2]!, edited[1]!])]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: edited: record 2 (line 3) was edited: its hash does not match its content\n' +
        'error: reordered: record 2 (line 3) comes after record 3 (line 2)\n',
    );
    expect(r.stdout).toMatch(/^FAILED: 2 finding\(s\) in 3 records/);
  });

  it('writes findings as NDJSON records under --json', async () => {
    const r = await wop([
      'audit',
      'verify',
      file(
        'gap.ndjson',
        chain(3).filter((l) => l.seq !== 2),
      ),
      '--json',
    ]);
    expect(r.code).toBe(1);
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(records).toEqual([
      { type: 'finding', kind: 'missing', fromSeq: 2, toSeq: 2, message: 'record 2 is missing' },
      expect.objectContaining({ type: 'audit-verify', ok: false, records: 2 }),
    ]);
  });

  it('takes a partial export with --partial', async () => {
    const tail = chain(4).slice(2);
    expect((await wop(['audit', 'verify', file('tail.ndjson', tail)])).code).toBe(1);
    expect((await wop(['audit', 'verify', file('tail2.ndjson', tail), '--partial'])).code).toBe(0);
  });

  it.each([
    [['audit'], /wop audit verify <file> \| wop audit export/],
    [['audit', 'verify'], /takes one file/],
    [['audit', 'verify', '/nonexistent/audit.ndjson'], /cannot read/],
    [['audit', 'export', 'out.ndjson'], /writes to stdout/],
    [['audit', 'verify', 'x', '--reason', 'y'], /--reason does not apply to wop audit/],
  ])('wop %j is a usage error', async (argv, message) => {
    const r = await wop(argv);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(message) });
  });
});
