import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { APPS, judge, parseOwnership, tablesOfMigrations, type FoundAccess, type Owner } from './ownership';
import { stringsInSource, tablesInSql, type TableAccess } from './sql-tables';

// ADR 0040: each table has one owning app, only the owner writes it, and other apps read only what
// the ADR lists. The ADR's tables are the one source; this scans the SQL of every app and lib.

const ROOT = resolve(__dirname, '../../../..');
const ADR = 'docs/adr/0040-one-owner-per-table.md';
const MIGRATIONS = 'libs/platform-db/src/migrations';
const ownership = parseOwnership(readFileSync(join(ROOT, ADR), 'utf8'));

/** Source trees the rule does not cover: the end-to-end suite and the test kit. */
const NOT_SCANNED = new Set(['apps/e2e/src', 'libs/testing/src']);

const sourceTrees = (['apps', 'libs'] as const).flatMap((kind) =>
  readdirSync(join(ROOT, kind))
    .map((name) => `${kind}/${name}/src`)
    .filter((dir) => existsSync(join(ROOT, dir)) && !NOT_SCANNED.has(dir)),
);

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory())
      return e.name === 'dist' || e.name === 'node_modules' || path === MIGRATIONS ? [] : filesUnder(path);
    return /\.(c|m)?ts$/.test(e.name) && !/\.spec\.(c|m)?ts$/.test(e.name) && !e.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

const SQL_VERB = /^\(?\s*(SELECT|INSERT|UPDATE|DELETE|WITH|TRUNCATE|MERGE)\b/i;
const key = (a: TableAccess) => `${a.table} ${a.access}`;

interface Scan {
  readonly found: FoundAccess[];
  readonly problems: string[];
}

/** Every table access of the scanned sources, and what the scan could not judge. */
function scanSources(): Scan {
  const found: FoundAccess[] = [];
  const problems: string[] = [];
  for (const tree of sourceTrees) {
    const by: FoundAccess['by'] = ownership.sources.get(tree) ?? `unlisted ${tree}`;
    for (const file of filesUnder(tree)) {
      for (const s of stringsInSource(readFileSync(join(ROOT, file), 'utf8'), file)) {
        const scan = tablesInSql(s.text);
        for (const a of scan.accesses)
          found.push({ by, file, line: s.line + a.line - 1, table: a.table, access: a.access });
        for (const d of scan.dynamic) {
          problems.push(
            `${file}:${s.line + d.line - 1}: the table after ${d.keyword} is an expression; name it in the SQL text (ADR 0040)`,
          );
        }
        // Lower-case keywords would hide a statement from the scan: the house style is upper case.
        if (SQL_VERB.test(s.text.trimStart())) {
          const seen = new Set(scan.accesses.map(key));
          const hidden = tablesInSql(s.text.toUpperCase()).accesses.filter(
            (a) => ownership.tables.has(a.table) && !seen.has(key(a)),
          );
          for (const a of hidden) {
            problems.push(
              `${file}:${s.line + a.line - 1}: write SQL keywords in upper case, so ADR 0040's scan sees the ${a.access} of \`${a.table}\``,
            );
          }
        }
      }
    }
  }
  return { found, problems };
}

describe('one owner per table (ADR 0040)', () => {
  const scan = scanSources();

  it('lists every table the migrations leave, and TypeORM’s own, each once with an owner', () => {
    const migrations = readdirSync(join(ROOT, MIGRATIONS))
      .filter((f) => /^\d+-.+\.ts$/.test(f) && !f.includes('.spec.'))
      .sort()
      .map((f) => readFileSync(join(ROOT, MIGRATIONS, f), 'utf8').split(/\basync\s+down\s*\(/)[0]!);
    const created = tablesOfMigrations(migrations);
    const bookkeeping = /migrationsTableName:\s*'([a-z_]+)'/.exec(
      readFileSync(join(ROOT, 'libs/platform-db/src/data-source.ts'), 'utf8'),
    );
    expect(bookkeeping).not.toBeNull();
    created.add(bookkeeping![1]!);
    expect([...ownership.tables.keys()].sort()).toEqual([...created].sort());
    expect(created.size).toBeGreaterThan(20);
  });

  it('says which owner every scanned app acts for, and lists only folders that exist', () => {
    for (const app of APPS) expect(ownership.sources.get(`apps/${app}/src`)).toBe(app);
    const apps = sourceTrees.filter((t) => t.startsWith('apps/'));
    expect(apps.filter((t) => !ownership.sources.has(t))).toEqual([]);
    expect([...ownership.sources.keys()].filter((s) => !sourceTrees.includes(s))).toEqual([]);
  });

  it('names files that exist in the ledger', () => {
    const files = ownership.ledger.flatMap((e) => e.files);
    expect(files.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });

  it('finds the SQL it judges (the scan is not blind)', () => {
    const owners = new Set(scan.found.filter((f) => ownership.tables.has(f.table)).map((f) => f.by));
    for (const app of [
      'gateway',
      'engine',
      'interrupt',
      'token',
      'projector',
      'notifier',
      'platform',
    ] satisfies Owner[]) {
      expect(owners).toContain(app);
    }
  });

  it('every table position names its table in the SQL text, with upper-case keywords', () => {
    expect(scan.problems).toEqual([]);
  });

  it('no app touches a table it neither owns nor may read, or writes one it does not own; the ledger only shrinks', () => {
    expect(judge(ownership, scan.found)).toEqual([]);
  });
});
