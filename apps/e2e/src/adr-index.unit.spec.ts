import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// docs/adr holds one record per decision. A reader must see at a glance whether a record still holds:
// each starts with a status line in one format (docs/adr/README.md says which), names what replaced
// a part of it with a link that resolves, says when not to use it, and is listed in the index.

const DIR = resolve(__dirname, '../../../docs/adr');
const DATE = String.raw`\d{4}-\d{2}-\d{2}`;
const LINK = String.raw`\[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\)`;
/** The first clause: `accepted (date)` or `superseded by [NNNN](file) (date)`. */
const HEAD = new RegExp(`^(?:accepted \\((${DATE})\\)|superseded by ${LINK} \\((${DATE})\\))$`);
/** `revised date (what), date (what)`: every revision dated, each with one phrase. */
const REVISED = new RegExp(`^revised ${DATE} \\([^()]+\\)(?:, ${DATE} \\([^()]+\\))*$`);
/** Further clauses that name other records; each must carry at least one link. */
const NAMING =
  /^(?:partly superseded by|to be superseded by|to be partly superseded by|partly supersedes|supersedes) \[/;
const IN_PROGRESS = /^in progress\b/;

interface Adr {
  readonly file: string;
  readonly number: string;
  readonly lines: readonly string[];
}

function adrs(): Adr[] {
  return readdirSync(DIR)
    .filter((f) => /^\d{4}-.+\.md$/.test(f))
    .sort()
    .map((file) => ({
      file,
      number: file.slice(0, 4),
      lines: readFileSync(join(DIR, file), 'utf8').split('\n'),
    }));
}

/** What is wrong with one record's status line; empty when it is in the format. */
function statusProblems(adr: Adr, exists: (file: string) => boolean): string[] {
  const problems: string[] = [];
  const [title, blank, status] = adr.lines;
  if (!new RegExp(`^# ${adr.number}(?: —|\\.) \\S`).test(title ?? ''))
    problems.push(`line 1 is not "# ${adr.number} — Title"`);
  if (blank !== '' || !status?.startsWith('Status: '))
    return [...problems, 'line 3 is not a "Status: …" line after a blank line'];
  if (adr.lines[3] !== '') problems.push('the status is not one line (line 4 must be blank)');
  const [head = '', ...clauses] = status.slice('Status: '.length).split('; ');
  const first = HEAD.exec(head);
  if (!first)
    problems.push(
      `"${head}" is neither "accepted (YYYY-MM-DD)" nor "superseded by [NNNN](file) (YYYY-MM-DD)"`,
    );
  const accepted = first?.[1] ?? first?.[4] ?? '';
  for (const clause of clauses) {
    if (REVISED.test(clause)) {
      for (const date of clause.match(new RegExp(DATE, 'g')) ?? []) {
        if (date < accepted) problems.push(`revision ${date} predates the acceptance ${accepted}`);
      }
    } else if (NAMING.test(clause) || IN_PROGRESS.test(clause)) {
      // checked below by its links
    } else {
      problems.push(
        `clause "${clause}" is none of: revised, (to be) (partly) superseded by, (partly) supersedes, in progress`,
      );
    }
  }
  for (const [, number, file] of status.matchAll(new RegExp(LINK, 'g'))) {
    if (!file?.startsWith(`${number}-`)) problems.push(`link [${number}] points at ${file}`);
    else if (!exists(file)) problems.push(`link [${number}](${file}) does not resolve`);
  }
  return problems;
}

describe('architecture decision records (docs/adr)', () => {
  const all = adrs();
  const exists = (file: string): boolean => existsSync(join(DIR, file));

  it('finds the records', () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
    expect(new Set(all.map((a) => a.number)).size).toBe(all.length);
  });

  it('each starts with a status line in the one format, whose links resolve', () => {
    const wrong = all
      .map((a) => ({ file: a.file, problems: statusProblems(a, exists) }))
      .filter((w) => w.problems.length);
    expect(wrong).toEqual([]);
  });

  it('each says when not to use it', () => {
    expect(all.filter((a) => !a.lines.includes('## When not to use')).map((a) => a.file)).toEqual([]);
  });

  it('the index lists every record once, with its status', () => {
    const index = readFileSync(join(DIR, 'README.md'), 'utf8');
    const rows = index.split('\n').filter((l) => /^\| \d{4} \|/.test(l));
    const listed = rows.map((r) => /\]\((\d{4}-[a-z0-9-]+\.md)\)/.exec(r)?.[1]);
    expect([...listed].sort()).toEqual(all.map((a) => a.file));
    for (const row of rows) {
      const [, number, , cell = ''] = row.split('|').map((c) => c.trim());
      const adr = all.find((a) => a.number === number);
      const head = adr?.lines[2]?.slice('Status: '.length) ?? '';
      // The index's status starts with the record's own first word: accepted, or superseded.
      expect({ number, status: cell.split(' ')[0] }).toEqual({ number, status: head.split(' ')[0] });
    }
  });
});

describe('statusProblems', () => {
  const adr = (status: string, title = '# 0007 — Tokens'): Adr => ({
    file: '0007-x.md',
    number: '0007',
    lines: [title, '', status, ''],
  });
  const exists = (file: string): boolean => file === '0039-y.md';

  it('accepts the format', () => {
    expect(statusProblems(adr('Status: accepted (2026-11-22)'), exists)).toEqual([]);
    expect(
      statusProblems(
        adr(
          'Status: accepted (2026-11-22); revised 2026-11-26 (minted on demand), 2026-11-29 (404 for any bad token); to be superseded by [0039](0039-y.md) when its steps land',
        ),
        exists,
      ),
    ).toEqual([]);
    expect(statusProblems(adr('Status: superseded by [0039](0039-y.md) (2026-11-30)'), exists)).toEqual([]);
  });

  it('refuses what a reader could not rely on', () => {
    expect(statusProblems(adr('Status: accepted'), exists)).toHaveLength(1);
    expect(
      statusProblems(adr('Status: accepted (2026-11-22); revised (2026-11-26): minted on demand'), exists),
    ).toHaveLength(1);
    expect(
      statusProblems(adr('Status: accepted (2026-11-22); revised 2026-11-20 (earlier)'), exists),
    ).toHaveLength(1);
    expect(
      statusProblems(
        adr('Status: accepted (2026-11-22); partly superseded by [0040](0040-z.md) (tables)'),
        exists,
      ),
    ).toHaveLength(1);
    expect(statusProblems(adr('Status: accepted (2026-11-22); amended by ADR 0025'), exists)).toHaveLength(1);
    expect(statusProblems(adr('Accepted.'), exists)).toHaveLength(1);
    expect(statusProblems(adr('Status: accepted (2026-11-22)', '# Tokens'), exists)).toHaveLength(1);
  });
});
