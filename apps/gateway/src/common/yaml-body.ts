import { MAX_JSON_DEPTH, MAX_YAML_ALIASES, valueDepthExceeds } from '@openwop/contracts';
import { Parser, parseDocument, type CST } from 'yaml';
import { ApiError } from './api.error';
import { unstorableTextRefusal } from './unstorable-text';

/** Nesting depth and alias count of a YAML text, read from its syntax tree. */
export interface YamlShape {
  /** Whether collections nest deeper than the bound given to {@link yamlShape}. */
  readonly tooDeep: boolean;
  /** `*alias` references in the text. */
  readonly aliases: number;
}

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);

/**
 * Measures a YAML text before it is composed: the `yaml` package's syntax-tree parser keeps its own
 * stack (no recursion), and this walk uses an explicit one, so a deeply nested or alias-heavy text
 * is measured without the recursive composition ever seeing it.
 */
export function yamlShape(text: string, maxDepth: number = MAX_JSON_DEPTH): YamlShape {
  let aliases = 0;
  const stack: [CST.Token | null | undefined, number][] = [];
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document') stack.push([token.value, 0]);
  }
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    if (!token) continue;
    if (token.type === 'alias') aliases++;
    if (!COLLECTIONS.has(token.type)) continue;
    if (depth + 1 > maxDepth) return { tooDeep: true, aliases };
    for (const item of (token as CST.BlockMap | CST.BlockSequence | CST.FlowCollection).items) {
      const entry = item as { key?: CST.Token | null; value?: CST.Token };
      stack.push([entry.key, depth + 1], [entry.value, depth + 1]);
    }
  }
  return { tooDeep: false, aliases };
}

const tooDeep = () =>
  ApiError.validation(
    `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
    [{ path: '', message: `must not nest collections deeper than ${MAX_JSON_DEPTH}` }],
    { maxDepth: MAX_JSON_DEPTH },
  );

const tooManyAliases = () =>
  ApiError.validation(
    `The body uses more than ${MAX_YAML_ALIASES} YAML aliases.`,
    [{ path: '', message: `must not use more than ${MAX_YAML_ALIASES} aliases` }],
    { maxAliases: MAX_YAML_ALIASES },
  );

/**
 * A YAML body (`Content-Type: application/yaml`, read as text) as JSON data, within the same
 * bounds as JSON: at most `MAX_JSON_DEPTH` deep and `MAX_YAML_ALIASES` aliases, measured before
 * composition, and the composed value measured again (aliases can nest a subtree under another).
 * Text Postgres cannot store (NUL, lone surrogates) is refused as in JSON bodies. Every refusal is
 * `400 validation_error`; a syntax error names its line and column.
 *
 * @throws ApiError when the text is not valid YAML or breaks a bound.
 */
export function parseYamlBody(text: string): unknown {
  const shape = yamlShape(text);
  if (shape.tooDeep) throw tooDeep();
  if (shape.aliases > MAX_YAML_ALIASES) throw tooManyAliases();
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    throw ApiError.validation(
      'The body is not valid YAML.',
      doc.errors.map((e) => ({ path: '', message: e.message })),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    // `yaml` refuses an alias expansion past `maxAliasCount` with a ReferenceError (an alias bomb).
    if (error instanceof ReferenceError) throw tooManyAliases();
    throw error;
  }
  if (valueDepthExceeds(value)) throw tooDeep();
  // Escapes (`"\0"`) can spell text the JSON intake would have refused.
  const unstorable = unstorableTextRefusal('', value);
  if (unstorable) throw unstorable;
  return value;
}
