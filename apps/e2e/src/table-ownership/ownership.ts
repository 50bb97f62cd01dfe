import type { Access } from './sql-tables';

/**
 * The ownership rules of ADR 0040, parsed from the ADR's own tables (the one machine-readable
 * source), and the judgement of what a scan of the source found against them.
 */

/** The apps of ADR 0040: each owns its tables; `platform` is the shared infrastructure's code. */
export const APPS = [
  'gateway',
  'engine',
  'interrupt',
  'token',
  'projector',
  'notifier',
  'embedded',
  'cli',
] as const;
export const PLATFORM = 'platform';
export type Owner = (typeof APPS)[number] | typeof PLATFORM;

export interface TableRule {
  readonly owner: Owner;
  readonly readers: readonly Owner[];
}

/** One row of the ledger: `app` keeps `access` to `table` in `files` until issue #28 replaces it. */
export interface LedgerEntry {
  readonly app: Owner;
  readonly table: string;
  readonly access: Access;
  readonly files: readonly string[];
}

export interface Ownership {
  readonly tables: ReadonlyMap<string, TableRule>;
  /** Source folder (repository-relative, no trailing slash) → the owner its SQL acts for. */
  readonly sources: ReadonlyMap<string, Owner>;
  readonly ledger: readonly LedgerEntry[];
}

export const OWNERS_HEADING = '## Owners and readers';
export const SOURCES_HEADING = '## Where the test looks';
export const LEDGER_HEADING = '## Known violations, removed by #28';

/** The rows (cells trimmed, header and separator dropped) of the first Markdown table after `heading`. */
export function markdownTable(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((l) => l.trim() === heading);
  if (at < 0) throw new Error(`no "${heading}" section`);
  let k = at + 1;
  while (k < lines.length && !lines[k]!.trim().startsWith('|')) {
    if (lines[k]!.startsWith('## ')) throw new Error(`no table under "${heading}"`);
    k++;
  }
  const rows: string[][] = [];
  for (; k < lines.length && lines[k]!.trim().startsWith('|'); k++) {
    const cells = lines[k]!.trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
    rows.push(cells);
  }
  if (rows.length < 2 || !rows[1]!.every((c) => /^:?-+:?$/.test(c)))
    throw new Error(`the table under "${heading}" has no header`);
  return rows.slice(2);
}

const code = (cell: string): string => cell.replace(/^`(.*)`$/, '$1');
const none = (cell: string): boolean => cell === '—' || cell === '-' || cell === '';

function owner(cell: string, where: string): Owner {
  const name = cell.trim();
  if (name === PLATFORM || (APPS as readonly string[]).includes(name)) return name as Owner;
  throw new Error(`${where}: "${name}" is not an app of ADR 0040 (${[...APPS, PLATFORM].join(', ')})`);
}

/** Parses ADR 0040's tables; throws on a row it cannot read, so a typo fails rather than allows. */
export function parseOwnership(markdown: string): Ownership {
  const tables = new Map<string, TableRule>();
  for (const [i, row] of markdownTable(markdown, OWNERS_HEADING).entries()) {
    const where = `${OWNERS_HEADING}, row ${i + 1}`;
    if (row.length !== 4) throw new Error(`${where}: expected 4 cells, got ${row.length}`);
    const table = code(row[0]!);
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`${where}: "${row[0]}" is not a table name`);
    if (tables.has(table)) throw new Error(`${where}: \`${table}\` is listed twice`);
    const readers = none(row[2]!) ? [] : row[2]!.split(',').map((r) => owner(r, where));
    tables.set(table, { owner: owner(row[1]!, where), readers });
  }
  const sources = new Map<string, Owner>();
  for (const [i, row] of markdownTable(markdown, SOURCES_HEADING).entries()) {
    const where = `${SOURCES_HEADING}, row ${i + 1}`;
    if (row.length !== 2) throw new Error(`${where}: expected 2 cells, got ${row.length}`);
    sources.set(code(row[0]!).replace(/\/$/, ''), owner(row[1]!, where));
  }
  const ledger: LedgerEntry[] = [];
  for (const [i, row] of markdownTable(markdown, LEDGER_HEADING).entries()) {
    const where = `${LEDGER_HEADING}, row ${i + 1}`;
    if (row.length !== 5) throw new Error(`${where}: expected 5 cells, got ${row.length}`);
    const access = row[2]!;
    if (access !== 'read' && access !== 'write')
      throw new Error(`${where}: access "${access}" is neither read nor write`);
    const table = code(row[1]!);
    if (!tables.has(table)) throw new Error(`${where}: \`${table}\` is not in the owners table`);
    const files = row[3]!.split(',').map((f) => code(f.trim()));
    if (files.some((f) => f === '')) throw new Error(`${where}: no files`);
    if (!row[4]) throw new Error(`${where}: say what replaces it`);
    ledger.push({ app: owner(row[0]!, where), table, access, files });
  }
  return { tables, sources, ledger };
}

/** The tables the migrations leave: created in an `up`, less those a later `up` drops, in order. */
export function tablesOfMigrations(upBodies: readonly string[]): Set<string> {
  const tables = new Set<string>();
  for (const body of upBodies) {
    for (const m of body.matchAll(
      /\b(CREATE|DROP)\s+TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"?([a-z_][a-z0-9_]*)"?/g,
    )) {
      if (m[1] === 'CREATE') tables.add(m[2]!);
      else tables.delete(m[2]!);
    }
  }
  return tables;
}

/** One table access found in a source file, attributed to the owner its source acts for. */
export interface FoundAccess {
  readonly by: Owner | `unlisted ${string}`;
  readonly file: string;
  readonly line: number;
  readonly table: string;
  readonly access: Access;
}

const verb = (a: Access) => (a === 'read' ? 'reads' : 'writes');

/**
 * The breaches of `ownership` among `found` (tables not in the ownership table are not the
 * project's: catalogs, `WITH` queries of another string), and the ledger rows no longer needed.
 * Each message names the file, the line, the table and the access.
 */
export function judge(ownership: Ownership, found: readonly FoundAccess[]): string[] {
  const problems: string[] = [];
  const ledgered = (f: FoundAccess) =>
    ownership.ledger.some(
      (e) => e.app === f.by && e.table === f.table && e.access === f.access && e.files.includes(f.file),
    );
  for (const f of found) {
    const rule = ownership.tables.get(f.table);
    if (!rule || rule.owner === f.by) continue;
    if (f.access === 'read' && rule.readers.includes(f.by as Owner)) continue;
    if (ledgered(f)) continue;
    if (f.by.startsWith('unlisted ')) {
      const source = f.by.slice('unlisted '.length);
      problems.push(
        `${f.file}:${f.line}: ${source} ${verb(f.access)} \`${f.table}\` but is not in ADR 0040's "${SOURCES_HEADING.slice(3)}": say which app it acts for`,
      );
      continue;
    }
    const may = rule.readers.length ? `may read: ${rule.readers.join(', ')}` : 'no other app may read it';
    problems.push(
      `${f.file}:${f.line}: ${f.by} ${verb(f.access)} \`${f.table}\`, owned by ${rule.owner} (${may}); ` +
        (f.access === 'write'
          ? 'only the owner writes a table'
          : 'read a projection or ask the owner instead'),
    );
  }
  for (const e of ownership.ledger) {
    for (const file of e.files) {
      const still = found.some(
        (f) => f.by === e.app && f.table === e.table && f.access === e.access && f.file === file,
      );
      if (!still) {
        problems.push(
          `ledger of ADR 0040: ${e.app} no longer ${verb(e.access)} \`${e.table}\` in ${file}; remove it from the row (the ledger only shrinks)`,
        );
      }
    }
  }
  return problems;
}
