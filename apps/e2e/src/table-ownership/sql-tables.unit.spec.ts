import { judge, parseOwnership, tablesOfMigrations, type FoundAccess, type Ownership } from './ownership';
import { stringsInSource, tablesInSql, tablesInSource } from './sql-tables';

// The scanner and the judgement behind ADR 0040's test, on small inputs: what counts as a table,
// what does not, and each way the judgement fails.

const tables = (sql: string) => tablesInSql(sql).accesses.map((a) => `${a.access} ${a.table}`);

describe('tablesInSql', () => {
  it('reads: FROM, each JOIN, a FROM list, subqueries and EXISTS', () => {
    expect(tables('SELECT a FROM runs r WHERE r.run_id = $1')).toEqual(['read runs']);
    expect(
      tables(`SELECT p.x FROM pending_interrupts p LEFT JOIN interrupts i ON i.interrupt_id = p.interrupt_id
              JOIN conversations USING (run_id) CROSS JOIN LATERAL (SELECT 1 FROM run_events) e`),
    ).toEqual(['read pending_interrupts', 'read interrupts', 'read conversations', 'read run_events']);
    expect(tables('SELECT 1 FROM conversations c, conversation_turns AS t (a, b), runs WHERE true')).toEqual([
      'read conversations',
      'read conversation_turns',
      'read runs',
    ]);
    expect(
      tables('SELECT EXISTS (SELECT 1 FROM outbox o WHERE o.id < (SELECT min(id) FROM audit_heads))'),
    ).toEqual(['read outbox', 'read audit_heads']);
  });

  it('writes: INSERT INTO, UPDATE, DELETE FROM, TRUNCATE and table DDL; what they read besides', () => {
    expect(
      tables(
        'INSERT INTO idempotency_records AS r (tenant) VALUES ($1) ON CONFLICT (tenant) DO UPDATE SET tenant = r.tenant',
      ),
    ).toEqual(['write idempotency_records']);
    expect(tables('INSERT INTO runs (run_id) SELECT run_id FROM engine_runs')).toEqual([
      'write runs',
      'read engine_runs',
    ]);
    expect(
      tables('UPDATE webhook_deliveries d SET status = $1 FROM webhook_runs w WHERE w.run_id = d.run_id'),
    ).toEqual(['write webhook_deliveries', 'read webhook_runs']);
    expect(tables('DELETE FROM outbox USING processed_messages p WHERE p.message_id = outbox.key')).toEqual([
      'write outbox',
      'read processed_messages',
    ]);
    expect(tables('TRUNCATE TABLE runs, run_events')).toEqual(['write runs', 'write run_events']);
    expect(
      tables('CREATE TABLE IF NOT EXISTS a (id text REFERENCES webhook_subscriptions (webhook_id))'),
    ).toEqual(['write a', 'read webhook_subscriptions']);
    expect(tables('ALTER TABLE interrupts ADD COLUMN x text')).toEqual(['write interrupts']);
    expect(tables('DROP TABLE IF EXISTS conversation_turns, conversations')).toEqual([
      'write conversation_turns',
      'write conversations',
    ]);
  });

  it('row locks, conflict actions and referential actions are no UPDATE of a table', () => {
    expect(tables('SELECT state FROM interrupts WHERE id = $1 FOR UPDATE SKIP LOCKED')).toEqual([
      'read interrupts',
    ]);
    expect(tables('SELECT 1 FROM runs FOR NO KEY UPDATE OF runs')).toEqual(['read runs']);
    expect(
      tables('INSERT INTO runs (a) VALUES (1) ON CONFLICT ON CONSTRAINT runs_pkey DO UPDATE SET a = 2'),
    ).toEqual(['write runs']);
    expect(
      tables('CREATE TABLE t (r text REFERENCES runs (run_id) ON UPDATE CASCADE ON DELETE CASCADE)'),
    ).toEqual(['write t', 'read runs']);
  });

  it('a WITH query is not a table, even one named like a table; what it reads and writes is', () => {
    expect(
      tables(`WITH held AS (SELECT state FROM interrupts WHERE id = $1 FOR UPDATE),
              runs AS MATERIALIZED (DELETE FROM run_timers RETURNING run_id),
              appended AS (INSERT INTO audit_records (seq) SELECT seq FROM held RETURNING 1)
              UPDATE audit_heads SET seq = (SELECT count(*) FROM appended) WHERE EXISTS (SELECT 1 FROM runs)`),
    ).toEqual(['read interrupts', 'write run_timers', 'write audit_records', 'write audit_heads']);
    expect(
      tables('WITH RECURSIVE walk AS (SELECT 1 UNION ALL SELECT 1 FROM walk) SELECT * FROM walk'),
    ).toEqual([]);
  });

  it('quoted and schema-qualified names are tables; a quoted name keeps its case', () => {
    expect(
      tables(
        'SELECT 1 FROM "run_events" JOIN public.runs ON true JOIN "public"."pending_interrupts" ON true',
      ),
    ).toEqual(['read run_events', 'read runs', 'read pending_interrupts']);
    expect(tables('SELECT 1 FROM "Runs" JOIN Outbox ON true')).toEqual(['read Runs', 'read outbox']);
    expect(tables('UPDATE "we""ird" SET a = 1')).toEqual(['write we"ird']);
  });

  it('a column, alias or value named like a table is not a table', () => {
    expect(
      tables(
        'SELECT runs, interrupts AS outbox, t.run_events FROM webhook_runs t WHERE runs = $1 ORDER BY interrupts',
      ),
    ).toEqual(['read webhook_runs']);
    expect(tables('UPDATE engine_runs SET runs = $1, outbox = $2 RETURNING interrupts')).toEqual([
      'write engine_runs',
    ]);
    expect(tables("SELECT 'FROM runs', E'JOIN it\\'s outbox' FROM audit_records -- FROM interrupts")).toEqual(
      ['read audit_records'],
    );
    expect(tables('SELECT 1 /* DELETE FROM runs */ FROM conversations')).toEqual(['read conversations']);
    expect(
      tables(
        'SELECT extract(epoch FROM runs), substring(a FROM outbox) FROM pending_interrupts WHERE a IS DISTINCT FROM runs',
      ),
    ).toEqual(['read pending_interrupts']);
  });

  it('a function in FROM is not a table; its alias list and what follows are read on', () => {
    expect(tables('SELECT e FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(t, n), runs')).toEqual([
      'read runs',
    ]);
    expect(tables('SELECT 1 FROM unnest($1::text[]) AS n JOIN runs r ON r.run_id = n')).toEqual([
      'read runs',
    ]);
    expect(
      tables('INSERT INTO run_events (a) SELECT e FROM jsonb_to_recordset($2::jsonb) AS r(a text, b int)'),
    ).toEqual(['write run_events']);
  });

  it('keywords count in upper case only (the house style); prose is not SQL', () => {
    expect(tables('select doc from run_events')).toEqual([]);
    expect(tables('the run waits for runs it started from interrupts')).toEqual([]);
  });

  it('a dollar-quoted body is not statements of this text', () => {
    expect(
      tables(`CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN DELETE FROM runs; END $$ LANGUAGE plpgsql`),
    ).toEqual([]);
    expect(tables('SELECT $tag$ FROM runs $tag$ FROM outbox')).toEqual(['read outbox']);
  });

  it('reports a table position that holds an expression as dynamic, with its line', () => {
    expect(tablesInSql('SELECT 1\nFROM \u0000 WHERE a').dynamic).toEqual([{ keyword: 'FROM', line: 2 }]);
    expect(tablesInSql('DELETE FROM ').dynamic).toEqual([{ keyword: 'FROM', line: 1 }]);
    expect(tablesInSql('SELECT 1 FROM public.\u0000').dynamic).toEqual([{ keyword: 'FROM', line: 1 }]);
    expect(tablesInSql('INSERT INTO runs (a) VALUES \u0000').dynamic).toEqual([]);
  });

  it('gives each access its line within the text', () => {
    expect(tablesInSql('SELECT 1\n  FROM runs\n  JOIN outbox ON true').accesses.map((a) => a.line)).toEqual([
      2, 3,
    ]);
  });
});

describe('stringsInSource', () => {
  const source = [
    '// SELECT 1 FROM runs (a comment)',
    "const a = 'SELECT 1 FROM outbox';",
    'const b = `SELECT ${cols}',
    '  FROM ${table} JOIN interrupts i ON true`;',
    "const c = 'DELETE FROM ' + name + ' WHERE a';",
    'const d = "INSERT INTO " + \'audit_records (a) VALUES (1)\';',
    "const e = `UPDATE ${flag ? `runs` : 'engine_runs'} SET a = 1`;",
    '/* UPDATE run_events SET a = 1 */',
  ].join('\n');

  it('takes literals, templates and + chains, never comments, at their lines', () => {
    expect(stringsInSource(source).map((s) => [s.line, s.text])).toEqual([
      [2, 'SELECT 1 FROM outbox'],
      [3, 'SELECT \u0000\n  FROM \u0000 JOIN interrupts i ON true'],
      [5, 'DELETE FROM \u0000 WHERE a'],
      [6, 'INSERT INTO audit_records (a) VALUES (1)'],
      [7, 'UPDATE \u0000 SET a = 1'],
      [7, 'runs'],
      [7, 'engine_runs'],
    ]);
  });

  it('puts each access and each dynamic position at its line in the file', () => {
    const scan = tablesInSource(source);
    expect(scan.accesses.map((a) => `${a.line} ${a.access} ${a.table}`)).toEqual([
      '2 read outbox',
      '4 read interrupts',
      '6 write audit_records',
    ]);
    expect(scan.dynamic).toEqual([
      { keyword: 'FROM', line: 4 },
      { keyword: 'FROM', line: 5 },
      { keyword: 'UPDATE', line: 7 },
    ]);
  });
});

const ADR = `
## Owners and readers

| table | owner | may read | why |
| --- | --- | --- | --- |
| \`runs\` | projector | gateway, notifier | snapshots |
| \`interrupts\` | interrupt | — | aggregate |
| \`outbox\` | platform | — | infrastructure |

## Where the test looks

| source | acts for |
| --- | --- |
| \`apps/gateway/src\` | gateway |

## Known violations, removed by #28

| app | table | access | files | replaced by |
| --- | --- | --- | --- | --- |
| gateway | \`interrupts\` | read | \`apps/gateway/src/a.ts\`, \`apps/gateway/src/b.ts\` | a projection |
`;

describe('parseOwnership', () => {
  it('reads the three tables', () => {
    const o = parseOwnership(ADR);
    expect(o.tables.get('runs')).toEqual({ owner: 'projector', readers: ['gateway', 'notifier'] });
    expect(o.tables.get('outbox')).toEqual({ owner: 'platform', readers: [] });
    expect([...o.sources]).toEqual([['apps/gateway/src', 'gateway']]);
    expect(o.ledger).toEqual([
      {
        app: 'gateway',
        table: 'interrupts',
        access: 'read',
        files: ['apps/gateway/src/a.ts', 'apps/gateway/src/b.ts'],
      },
    ]);
  });

  it('refuses what it cannot read, so a typo fails rather than allows', () => {
    expect(() => parseOwnership(ADR.replace('gateway, notifier', 'gateway, notifer'))).toThrow(
      /"notifer" is not an app/,
    );
    expect(() => parseOwnership(ADR.replace('| read |', '| select |'))).toThrow(/neither read nor write/);
    expect(() => parseOwnership(ADR.replace('| gateway | `interrupts`', '| gateway | `interupts`'))).toThrow(
      /not in the owners table/,
    );
    expect(() => parseOwnership(ADR.replace('| `outbox` | platform', '| `runs` | platform'))).toThrow(
      /listed twice/,
    );
    expect(() => parseOwnership(ADR.replace('## Where the test looks', '## Elsewhere'))).toThrow(
      /no "## Where the test looks" section/,
    );
  });
});

describe('tablesOfMigrations', () => {
  it('keeps what the up steps create, less what a later one drops', () => {
    expect([
      ...tablesOfMigrations([
        'CREATE TABLE a (x text); CREATE TABLE IF NOT EXISTS "b" (y text)',
        'ALTER TABLE a ADD COLUMN z text; DROP TABLE IF EXISTS a',
        'CREATE TABLE c (id text)',
      ]),
    ]).toEqual(['b', 'c']);
  });
});

describe('judge', () => {
  const o: Ownership = parseOwnership(ADR);
  const at = (
    by: FoundAccess['by'],
    table: string,
    access: 'read' | 'write',
    file = `apps/${by}/src/x.ts`,
  ): FoundAccess => ({
    by,
    file,
    line: 7,
    table,
    access,
  });
  const ledgered = [
    at('gateway', 'interrupts', 'read', 'apps/gateway/src/a.ts'),
    at('gateway', 'interrupts', 'read', 'apps/gateway/src/b.ts'),
  ];

  it('passes the owner, the listed readers, the ledger and tables it does not know', () => {
    expect(
      judge(o, [
        ...ledgered,
        at('projector', 'runs', 'write'),
        at('gateway', 'runs', 'read'),
        at('notifier', 'runs', 'read'),
        at('platform', 'outbox', 'write'),
        at('engine', 'pg_class', 'read'),
      ]),
    ).toEqual([]);
  });

  it('fails a read by an app not listed, and a write by a reader', () => {
    expect(
      judge(o, [...ledgered, at('engine', 'interrupts', 'read'), at('gateway', 'runs', 'write')]),
    ).toEqual([
      'apps/engine/src/x.ts:7: engine reads `interrupts`, owned by interrupt (no other app may read it); read a projection or ask the owner instead',
      'apps/gateway/src/x.ts:7: gateway writes `runs`, owned by projector (may read: gateway, notifier); only the owner writes a table',
    ]);
  });

  it('allows a ledger row only in its files and for its access', () => {
    expect(
      judge(o, [
        ...ledgered,
        at('gateway', 'interrupts', 'read', 'apps/gateway/src/c.ts'),
        at('gateway', 'interrupts', 'write', 'apps/gateway/src/a.ts'),
      ]),
    ).toEqual([
      'apps/gateway/src/c.ts:7: gateway reads `interrupts`, owned by interrupt (no other app may read it); read a projection or ask the owner instead',
      'apps/gateway/src/a.ts:7: gateway writes `interrupts`, owned by interrupt (no other app may read it); only the owner writes a table',
    ]);
  });

  it('fails a ledger row, file by file, once its access is gone', () => {
    expect(judge(o, [ledgered[0]!])).toEqual([
      'ledger of ADR 0040: gateway no longer reads `interrupts` in apps/gateway/src/b.ts; remove it from the row (the ledger only shrinks)',
    ]);
  });

  it('fails a lib that touches a table without saying which app it acts for', () => {
    expect(
      judge(o, [...ledgered, at('unlisted libs/kernel/src', 'outbox', 'read', 'libs/kernel/src/k.ts')]),
    ).toEqual([
      'libs/kernel/src/k.ts:7: libs/kernel/src reads `outbox` but is not in ADR 0040\'s "Where the test looks": say which app it acts for',
    ]);
  });
});
