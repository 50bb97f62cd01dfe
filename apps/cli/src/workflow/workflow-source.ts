import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import type { Diagnostic } from './diagnostic';

/** A line and column, both 1-based. */
export interface Position {
  readonly line: number;
  readonly col: number;
}

/** A parsed workflow file (JSON or YAML: YAML 1.2 reads JSON too), with positions of its fields. */
export interface WorkflowSource {
  readonly value: unknown;
  /** Syntax errors; when there are any, `value` is not to be trusted. */
  readonly syntaxErrors: readonly Diagnostic[];
  /**
   * Where the field at `pointer` is written (its key, for a map entry); for a field that is not
   * there, where its closest existing parent is.
   */
  positionOf(pointer: string): Position;
}

/** Parses the text of a workflow file, keeping the position of every field. */
export function parseWorkflowSource(text: string): WorkflowSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntaxErrors: Diagnostic[] = doc.errors.map((e) => {
    const pos = lineCounter.linePos(e.pos[0]);
    return {
      severity: 'error',
      pointer: '',
      line: pos.line,
      col: pos.col,
      message: `cannot parse the file: ${e.message.split('\n')[0] ?? e.code}`,
    };
  });
  const at = (offset: number | undefined): Position => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, col: pos.col };
  };
  return {
    value: syntaxErrors.length === 0 ? (doc.toJS({ maxAliasCount: 100 }) as unknown) : undefined,
    syntaxErrors,
    positionOf(pointer) {
      let node: unknown = doc.contents;
      let position = at((doc.contents as YamlNode | null)?.range?.[0]);
      for (const segment of splitPointer(pointer)) {
        if (isMap(node)) {
          const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
          if (!pair) break;
          position = at(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
          node = pair.value;
        } else if (isSeq(node)) {
          const item = /^\d+$/.test(segment)
            ? (node.items[Number(segment)] as YamlNode | undefined)
            : undefined;
          if (!item) break;
          position = at(item.range?.[0]);
          node = item;
        } else {
          break;
        }
      }
      return position;
    },
  };
}

/** The reference tokens of a JSON pointer (RFC 6901). */
export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
