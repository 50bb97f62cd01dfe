import * as ts from 'typescript';

/**
 * A static scan of the SQL in TypeScript source for the tables it touches (ADR 0040). It reads the
 * string literals of a file (never its comments), tokenizes each as SQL and names a table only where
 * SQL puts one: after `FROM`, `JOIN`, `INSERT INTO`, `UPDATE`, `DELETE FROM`, `USING`, `REFERENCES`,
 * `TRUNCATE` and `CREATE`/`ALTER`/`DROP TABLE`. A column that shares a table's name is never taken
 * for the table. Keywords count in upper case only, the house style of every statement here: prose
 * such as "waits for runs" in a message is not SQL.
 */

export type Access = 'read' | 'write';

export interface TableAccess {
  /** The table's name as Postgres folds it (an unquoted name in lower case; a schema prefix dropped). */
  readonly table: string;
  readonly access: Access;
  /** 1-based line of the keyword within the scanned text. */
  readonly line: number;
}

/** A table position whose name is computed at run time (`FROM ${table}`): the scan cannot check it. */
export interface DynamicTable {
  readonly keyword: string;
  readonly line: number;
}

export interface SqlScan {
  readonly accesses: readonly TableAccess[];
  readonly dynamic: readonly DynamicTable[];
}

/** Stands for an interpolated expression (`${…}`) or a concatenated operand inside a scanned string. */
export const EXPRESSION = '\u0000';

type Token =
  | { readonly kind: 'word'; readonly text: string; readonly line: number }
  | { readonly kind: 'quoted'; readonly text: string; readonly line: number }
  | { readonly kind: 'expr'; readonly line: number }
  | { readonly kind: 'punct'; readonly text: string; readonly line: number }
  | { readonly kind: 'literal'; readonly line: number };

/** Functions whose arguments use `FROM` for something other than a table (`extract(epoch FROM t)`). */
const FROM_IN_ARGUMENTS = new Set(['extract', 'substring', 'trim', 'overlay', 'position', 'normalize']);

/** Words that end a `FROM` item: what follows a table reference and is not its alias. */
const CLAUSE_WORDS = new Set([
  'WHERE',
  'JOIN',
  'LEFT',
  'RIGHT',
  'INNER',
  'OUTER',
  'FULL',
  'CROSS',
  'NATURAL',
  'ON',
  'USING',
  'ORDER',
  'GROUP',
  'HAVING',
  'LIMIT',
  'OFFSET',
  'FOR',
  'SET',
  'RETURNING',
  'WINDOW',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'FETCH',
  'TABLESAMPLE',
  'WITH',
  'VALUES',
  'SELECT',
  'DEFAULT',
  'DO',
]);

/** `UPDATE` after these is a lock, a conflict action, a referential action or a trigger event, not a table. */
const NOT_AN_UPDATE_STATEMENT = new Set(['DO', 'FOR', 'KEY', 'ON', 'BEFORE', 'AFTER', 'OR', 'OF', 'INSTEAD']);

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  const advance = (to: number) => {
    for (let k = i; k < to && k < sql.length; k++) if (sql[k] === '\n') line++;
    i = to;
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const rest = sql.slice(i);
    if (c === '\n' || /\s/.test(c)) {
      advance(i + 1);
    } else if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      advance(end < 0 ? sql.length : end);
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      advance(end < 0 ? sql.length : end + 2);
    } else if (c === EXPRESSION) {
      tokens.push({ kind: 'expr', line });
      advance(i + 1);
    } else if (c === "'" || ((c === 'E' || c === 'e') && sql[i + 1] === "'")) {
      // A string constant; an E'' one takes backslash escapes.
      const escapes = c !== "'";
      const start = line;
      let k = escapes ? i + 2 : i + 1;
      while (k < sql.length) {
        if (escapes && sql[k] === '\\') k += 2;
        else if (sql[k] === "'" && sql[k + 1] === "'") k += 2;
        else if (sql[k] === "'") break;
        else k++;
      }
      advance(k + 1);
      tokens.push({ kind: 'literal', line: start });
    } else if (c === '"') {
      let k = i + 1;
      let text = '';
      while (k < sql.length) {
        if (sql[k] === '"' && sql[k + 1] === '"') {
          text += '"';
          k += 2;
        } else if (sql[k] === '"') break;
        else text += sql[k++];
      }
      tokens.push({ kind: 'quoted', text, line });
      advance(k + 1);
    } else if (c === '$' && /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.test(rest)) {
      // A dollar-quoted body ($$ … $$, $tag$ … $tag$): a function's code, not statements of this text.
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(rest)![0];
      const end = sql.indexOf(tag, i + tag.length);
      const start = line;
      advance(end < 0 ? sql.length : end + tag.length);
      tokens.push({ kind: 'literal', line: start });
    } else if (/[A-Za-z_]/.test(c)) {
      const text = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(rest)![0];
      tokens.push({ kind: 'word', text, line });
      advance(i + text.length);
    } else if (c === '$' && /^\$\d+/.test(rest)) {
      const text = /^\$\d+/.exec(rest)![0];
      tokens.push({ kind: 'literal', line });
      advance(i + text.length);
    } else if (/\d/.test(c)) {
      const text = /^\d+(\.\d+)?/.exec(rest)![0];
      tokens.push({ kind: 'literal', line });
      advance(i + text.length);
    } else {
      tokens.push({ kind: 'punct', text: c, line });
      advance(i + 1);
    }
  }
  return tokens;
}

const isWord = (t: Token | undefined, ...words: string[]): boolean =>
  t?.kind === 'word' && (words.length === 0 || words.includes(t.text));
const isPunct = (t: Token | undefined, p: string): boolean => t?.kind === 'punct' && t.text === p;

/** The index after the parenthesised group that opens at `open`. */
function skipGroup(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (isPunct(tokens[k], '(')) depth++;
    else if (isPunct(tokens[k], ')') && --depth === 0) return k + 1;
  }
  return tokens.length;
}

type Position = 'from' | 'join' | 'into' | 'update' | 'using' | 'references' | 'table';

interface Reference {
  /** The table named there, or `dynamic` when the name is an expression, or undefined (a subquery, a function). */
  readonly name?: string;
  readonly dynamic?: boolean;
  /** Index of the first token after the reference (and its call arguments or subquery). */
  readonly next: number;
}

/** Reads the table reference that starts at `at`, in a position of kind `position`. */
function referenceAt(tokens: readonly Token[], at: number, position: Position): Reference {
  let k = at;
  while (isWord(tokens[k], 'ONLY', 'IF', 'NOT', 'EXISTS')) k++;
  const first = tokens[k];
  if (first === undefined) return { dynamic: true, next: k };
  if (first.kind === 'expr') return { dynamic: true, next: k + 1 };
  if (isPunct(first, '(')) return { next: skipGroup(tokens, k) };
  if (isWord(first, 'LATERAL')) return { next: k + 1 };
  if (first.kind !== 'word' && first.kind !== 'quoted') return { next: k };
  const parts: Token[] = [first];
  k++;
  while (
    isPunct(tokens[k], '.') &&
    (tokens[k + 1]?.kind === 'word' || tokens[k + 1]?.kind === 'quoted' || tokens[k + 1]?.kind === 'expr')
  ) {
    parts.push(tokens[k + 1]!);
    k += 2;
  }
  const last = parts[parts.length - 1]!;
  if (last.kind !== 'word' && last.kind !== 'quoted') return { dynamic: true, next: k };
  // In FROM, JOIN and USING a name followed by `(` is a function (`unnest(…)`); after INTO, REFERENCES
  // and TABLE the parenthesis opens a column list.
  if (isPunct(tokens[k], '(') && (position === 'from' || position === 'join' || position === 'using')) {
    return { next: skipGroup(tokens, k) };
  }
  const name = last.kind === 'quoted' ? last.text : last.text.toLowerCase();
  return { name, next: k };
}

/** The index after an optional alias (`AS x`, `x`, `x (a, b)`, after `WITH ORDINALITY`) of the reference that ended at `at`. */
function afterAlias(tokens: readonly Token[], at: number): number {
  let k = at;
  if (isWord(tokens[k], 'WITH') && isWord(tokens[k + 1], 'ORDINALITY')) k += 2;
  if (isWord(tokens[k], 'AS')) k++;
  const t = tokens[k];
  if ((t?.kind === 'word' && !CLAUSE_WORDS.has(t.text)) || t?.kind === 'quoted') {
    k++;
    if (isPunct(tokens[k], '(')) k = skipGroup(tokens, k);
  }
  return k;
}

/** Names the `WITH` queries of a statement defines (`name AS (`, `name AS MATERIALIZED (`). */
function cteNames(tokens: readonly Token[]): Set<string> {
  const names = new Set<string>();
  for (let k = 0; k + 2 < tokens.length; k++) {
    const t = tokens[k]!;
    if ((t.kind !== 'word' && t.kind !== 'quoted') || !isWord(tokens[k + 1], 'AS')) continue;
    let j = k + 2;
    if (isWord(tokens[j], 'NOT')) j++;
    if (isWord(tokens[j], 'MATERIALIZED')) j++;
    const before = tokens[k - 1];
    const opensCte = isWord(before, 'WITH', 'RECURSIVE') || isPunct(before, ',');
    if (opensCte && isPunct(tokens[j], '(')) names.add(t.kind === 'quoted' ? t.text : t.text.toLowerCase());
  }
  return names;
}

/** The tables one SQL text touches, in order, with how; a `WITH` query's own name is not a table. */
export function tablesInSql(sql: string): SqlScan {
  const tokens = tokenize(sql);
  const ctes = cteNames(tokens);
  const accesses: TableAccess[] = [];
  const dynamic: DynamicTable[] = [];
  // The function whose parentheses enclose each token (`extract(epoch FROM …)`), innermost last.
  const calls: (string | undefined)[] = [];
  const note = (ref: Reference, access: Access, keyword: Token & { text: string }) => {
    if (ref.dynamic) dynamic.push({ keyword: keyword.text, line: keyword.line });
    else if (ref.name !== undefined && !ctes.has(ref.name))
      accesses.push({ table: ref.name, access, line: keyword.line });
  };
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (isPunct(t, '(')) {
      const before = tokens[k - 1];
      calls.push(before?.kind === 'word' ? before.text.toLowerCase() : undefined);
      continue;
    }
    if (isPunct(t, ')')) {
      calls.pop();
      continue;
    }
    if (t.kind !== 'word') continue;
    const before = tokens[k - 1];
    switch (t.text) {
      case 'FROM': {
        if (isWord(before, 'DISTINCT') || FROM_IN_ARGUMENTS.has(calls[calls.length - 1] ?? '')) break;
        const access: Access = isWord(before, 'DELETE') ? 'write' : 'read';
        // A FROM list: `FROM a x, b y`.
        let ref = referenceAt(tokens, k + 1, 'from');
        note(ref, access, t);
        let next = afterAlias(tokens, ref.next);
        while (access === 'read' && isPunct(tokens[next], ',')) {
          ref = referenceAt(tokens, next + 1, 'from');
          note(ref, 'read', t);
          next = afterAlias(tokens, ref.next);
        }
        break;
      }
      case 'JOIN':
        note(referenceAt(tokens, k + 1, 'join'), 'read', t);
        break;
      case 'INTO':
        if (isWord(before, 'INSERT', 'MERGE')) note(referenceAt(tokens, k + 1, 'into'), 'write', t);
        break;
      case 'UPDATE':
        if (
          !isWord(before, ...NOT_AN_UPDATE_STATEMENT) &&
          !isWord(tokens[k + 1], 'SET', 'SKIP', 'NOWAIT', 'OF')
        ) {
          note(referenceAt(tokens, k + 1, 'update'), 'write', t);
        }
        break;
      case 'USING':
        // `DELETE … USING t`; `JOIN … USING (col)` and `USING gin (…)` name no table here.
        if (!isPunct(tokens[k + 1], '(') && !isPunct(tokens[k + 2], '('))
          note(referenceAt(tokens, k + 1, 'using'), 'read', t);
        break;
      case 'REFERENCES':
        note(referenceAt(tokens, k + 1, 'references'), 'read', t);
        break;
      case 'TRUNCATE': {
        let ref = referenceAt(tokens, isWord(tokens[k + 1], 'TABLE') ? k + 2 : k + 1, 'table');
        note(ref, 'write', t);
        while (isPunct(tokens[ref.next], ',')) {
          ref = referenceAt(tokens, ref.next + 1, 'table');
          note(ref, 'write', t);
        }
        break;
      }
      case 'TABLE':
        if (isWord(before, 'CREATE', 'ALTER', 'DROP', 'UNLOGGED', 'TEMP', 'TEMPORARY')) {
          let ref = referenceAt(tokens, k + 1, 'table');
          note(ref, 'write', t);
          while (isWord(before, 'DROP') && isPunct(tokens[ref.next], ',')) {
            ref = referenceAt(tokens, ref.next + 1, 'table');
            note(ref, 'write', t);
          }
        }
        break;
      default:
        break;
    }
  }
  return { accesses, dynamic };
}

/** One string of a source file as the program builds it, with the line it starts on. */
export interface SourceString {
  readonly text: string;
  readonly line: number;
}

/**
 * The strings of a TypeScript file: each literal, each template (its `${…}` parts as
 * {@link EXPRESSION}) and each `+` chain of them (other operands as {@link EXPRESSION}); comments
 * are not strings.
 */
export function stringsInSource(source: string, fileName = 'source.ts'): SourceString[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: SourceString[] = [];
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const newlinesIn = (node: ts.Node) => '\n'.repeat((node.getText(file).match(/\n/g) ?? []).length);
  const textOf = (node: ts.Node): string | undefined => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) {
      return (
        node.head.text +
        node.templateSpans.map((s) => EXPRESSION + newlinesIn(s.expression) + s.literal.text).join('')
      );
    }
    if (ts.isParenthesizedExpression(node)) return textOf(node.expression);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = textOf(node.left);
      const right = textOf(node.right);
      if (left === undefined && right === undefined) return undefined;
      return (left ?? EXPRESSION + newlinesIn(node.left)) + (right ?? EXPRESSION + newlinesIn(node.right));
    }
    return undefined;
  };
  const isConcatenated = (node: ts.Node) => {
    let p = node.parent;
    while (p && ts.isParenthesizedExpression(p)) p = p.parent;
    return (
      p !== undefined &&
      ts.isBinaryExpression(p) &&
      p.operatorToken.kind === ts.SyntaxKind.PlusToken &&
      textOf(p) !== undefined
    );
  };
  const visit = (node: ts.Node): void => {
    const text = textOf(node);
    if (text !== undefined && !isConcatenated(node)) {
      found.push({ text, line: lineOf(node) });
      // A template's `${…}` parts may hold strings of their own (`${cond ? 'a' : 'b'}`).
      if (ts.isTemplateExpression(node)) node.templateSpans.forEach((s) => visit(s.expression));
      if (ts.isBinaryExpression(node)) {
        visit(node.left);
        visit(node.right);
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** A table touched by a source file, at the file's line. */
export function tablesInSource(source: string, fileName?: string): SqlScan {
  const accesses: TableAccess[] = [];
  const dynamic: DynamicTable[] = [];
  for (const s of stringsInSource(source, fileName)) {
    const scan = tablesInSql(s.text);
    accesses.push(...scan.accesses.map((a) => ({ ...a, line: s.line + a.line - 1 })));
    dynamic.push(...scan.dynamic.map((d) => ({ ...d, line: s.line + d.line - 1 })));
  }
  return { accesses, dynamic };
}
