/**
 * Generates the SDK's run event types (`libs/sdk/src/generated/run-events.ts`) from the OpenWOP
 * JSON Schemas: the envelope of `run-event.schema.json`, the per-type payloads of
 * `run-event-payloads.schema.json` (`$defs._typeIndex` maps each type to its payload), the
 * `InterruptPayload` of `suspend-request.schema.json` it refers to, and the run statuses of
 * `run-snapshot.schema.json`; and, from the host's one vocabulary in `libs/contracts` (read as
 * TypeScript, so those two files stay import-free), which statuses and run event types are terminal.
 *
 * Covers the JSON Schema subset those files use: `type` (also as a list), `properties`/`required`,
 * `additionalProperties` (an explicit `true` or schema adds an index signature), `items`, `enum`,
 * `const`, `oneOf`/`anyOf` (a union), `allOf` (an intersection), local and cross-file `$ref`.
 * A `$ref` to a schema that is not in the folder becomes `unknown` with a note.
 *
 * `node tools/sdk/generate-run-event-types.mts` rewrites the file; `--check` exits 1 when it is
 * stale; `--stdout` prints what it would write. The unit spec
 * `libs/sdk/src/generated/run-events.unit.spec.ts` fails while the committed file is stale.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TERMINAL_RUN_EVENT_TYPES } from '../../libs/contracts/src/run-event.ts';
import { TERMINAL_RUN_STATUSES } from '../../libs/contracts/src/run-status.ts';

type Schema = { readonly [key: string]: unknown };

/** The committed output, relative to the repository root. */
const GENERATED_FILE = 'libs/sdk/src/generated/run-events.ts';
/** The schemas read, relative to the repository root (verbatim copies of the OpenWOP reference set). */
const SCHEMA_DIR = 'libs/contracts/src/schemas';

/**
 * Fields `interrupt.requested` carries beyond `InterruptPayload` (which forbids extra fields): the
 * engine-assigned identity of `interrupt.md` §Wire surface, which the payload schema only names
 * ("plus engine-assigned identity fields").
 */
const INTERRUPT_IDENTITY = `{
  readonly runId: string;
  readonly nodeId: string;
  readonly interruptId: string;
  /** ISO 8601. */
  readonly requestedAt: string;
}`;

interface Named {
  readonly file: string;
  readonly def: string | undefined;
  readonly name: string;
}

function generateRunEventTypes(schemaDir: string): string {
  const files = new Map<string, Schema>();
  const load = (file: string): Schema | undefined => {
    if (!files.has(file)) {
      const path = join(schemaDir, file);
      if (!existsSync(path)) return undefined;
      files.set(file, JSON.parse(readFileSync(path, 'utf8')) as Schema);
    }
    return files.get(file);
  };
  const envelope = load('run-event.schema.json')!;
  const payloads = load('run-event-payloads.schema.json')!;
  const snapshot = load('run-snapshot.schema.json')!;
  const envelopeDefs = envelope.$defs as Record<string, Schema>;
  const eventTypes = (envelopeDefs.RunEventType!.enum as string[]).slice();
  const statusSchema = (snapshot.properties as Record<string, Schema>).status!;
  const statuses = statusSchema.enum as string[];
  const payloadDefs = payloads.$defs as Record<string, Schema>;
  const typeIndex = (payloadDefs._typeIndex!.properties ?? {}) as Record<string, Schema>;

  // Named declarations, emitted in the order first reached.
  const emitted = new Map<string, string>();
  const pending: Named[] = [];
  const names = new Map<string, string>();
  const nameOf = (file: string, def: string | undefined): string => {
    const key = `${file}#${def ?? ''}`;
    let name = names.get(key);
    if (name === undefined) {
      const schema = def === undefined ? load(file)! : (load(file)!.$defs as Record<string, Schema>)[def]!;
      name =
        def === undefined
          ? pascal(typeof schema.title === 'string' ? schema.title : file.replace(/\.schema\.json$/, ''))
          : file === 'run-event-payloads.schema.json'
            ? def.startsWith('_')
              ? pascal(def)
              : `${pascal(def)}Payload`
            : pascal(def);
      names.set(key, name);
      pending.push({ file, def, name });
    }
    return name;
  };

  const refType = (ref: string, file: string): string => {
    const [target, pointer] = ref.split('#') as [string, string | undefined];
    const targetFile = target === '' ? file : target.replace(/^.*\//, '');
    if (!load(targetFile)) return `unknown /* ${targetFile} is not in the reference set */`;
    const def = pointer?.startsWith('/$defs/') ? pointer.slice('/$defs/'.length) : undefined;
    return nameOf(targetFile, def);
  };

  const typeOf = (schema: Schema | boolean | undefined, file: string, indent: string): string => {
    if (schema === undefined || schema === true) return 'unknown';
    if (schema === false) return 'never';
    if (typeof schema.$ref === 'string') {
      const ref = refType(schema.$ref, file);
      const rest = Object.keys(schema).filter((k) => k !== '$ref' && !ANNOTATIONS.has(k));
      return rest.length === 0 ? ref : `${ref} & ${typeOf(omit(schema, '$ref'), file, indent)}`;
    }
    if ('const' in schema) return literal(schema.const);
    if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
    for (const key of ['oneOf', 'anyOf'] as const) {
      const members = schema[key];
      if (Array.isArray(members)) {
        const base = omit(schema, key);
        return union((members as Schema[]).map((m) => typeOf({ ...base, ...m }, file, indent)));
      }
    }
    if (Array.isArray(schema.allOf)) {
      const base = omit(schema, 'allOf');
      const parts = (schema.allOf as Schema[]).map((m) => typeOf(m, file, indent));
      if (Object.keys(base).some((k) => !ANNOTATIONS.has(k))) parts.unshift(typeOf(base, file, indent));
      return parts.map((p) => (p.includes('|') ? `(${p})` : p)).join(' & ');
    }
    const types = Array.isArray(schema.type)
      ? (schema.type as string[])
      : typeof schema.type === 'string'
        ? [schema.type]
        : [];
    if (types.length === 0) return schema.properties ? objectType(schema, file, indent) : 'unknown';
    return union(
      types.map((t) => {
        switch (t) {
          case 'string':
            return 'string';
          case 'integer':
          case 'number':
            return 'number';
          case 'boolean':
            return 'boolean';
          case 'null':
            return 'null';
          case 'array': {
            const item = typeOf(schema.items as Schema | undefined, file, indent);
            return /[|&\s]/.test(item) ? `Array<${item}>` : `${item}[]`;
          }
          case 'object':
            return objectType(schema, file, indent);
          default:
            return 'unknown';
        }
      }),
    );
  };

  const objectType = (schema: Schema, file: string, indent: string): string => {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const inner = `${indent}  `;
    const lines: string[] = [];
    for (const [key, prop] of Object.entries(props)) {
      lines.push(...doc(prop, inner));
      lines.push(
        `${inner}readonly ${propertyName(key)}${required.has(key) ? '' : '?'}: ${typeOf(prop, file, inner)};`,
      );
    }
    const extra = schema.additionalProperties;
    if (extra === true || (typeof extra === 'object' && extra !== null)) {
      // Named properties must fit the index signature: a typed one only when nothing else is named.
      const value = lines.length === 0 && extra !== true ? typeOf(extra as Schema, file, inner) : 'unknown';
      lines.push(`${inner}readonly [field: string]: ${value};`);
    }
    if (lines.length === 0) return 'Record<string, unknown>';
    return `{\n${lines.join('\n')}\n${indent}}`;
  };

  const declare = ({ file, def, name }: Named): string => {
    const schema = def === undefined ? load(file)! : (load(file)!.$defs as Record<string, Schema>)[def]!;
    let type = typeOf(schema, file, '');
    if (file === 'run-event-payloads.schema.json' && def === 'interruptRequested')
      type = `${type} & ${INTERRUPT_IDENTITY}`;
    const head = doc(schema, '', `\`${file}\`${def === undefined ? '' : ` \`$defs.${def}\``}`);
    return type.startsWith('{\n')
      ? `${head.join('\n')}\nexport interface ${name} ${type}\n`
      : `${head.join('\n')}\nexport type ${name} = ${type};\n`;
  };

  const payloadOf = new Map<string, string>();
  for (const type of eventTypes) {
    const ref = typeIndex[type]?.$ref;
    payloadOf.set(type, typeof ref === 'string' ? refType(ref, 'run-event-payloads.schema.json') : 'unknown');
  }
  while (pending.length > 0) {
    const next = pending.shift()!;
    emitted.set(next.name, declare(next));
  }

  const envelopeProps = envelope.properties as Record<string, Schema>;
  const required = new Set(envelope.required as string[]);
  const envelopeLines: string[] = [];
  for (const [key, prop] of Object.entries(envelopeProps)) {
    envelopeLines.push(...doc(prop, '  '));
    const type =
      key === 'type'
        ? 'T'
        : key === 'payload'
          ? 'RunEventPayloads[T]'
          : typeOf(prop, 'run-event.schema.json', '  ');
    envelopeLines.push(`  readonly ${key}${required.has(key) ? '' : '?'}: ${type};`);
  }

  const out: string[] = [
    '// Generated by tools/sdk/generate-run-event-types.mts from the OpenWOP schemas in',
    `// ${SCHEMA_DIR} (run-event, run-event-payloads, suspend-request, run-snapshot). Do not edit:`,
    '// change the generator or the schemas and run `node tools/sdk/generate-run-event-types.mts`.',
    '',
    '/** Every run event type (`run-event.schema.json` `$defs.RunEventType`). */',
    `export const RUN_EVENT_TYPES = [\n${eventTypes.map((t) => `  ${literal(t)},`).join('\n')}\n] as const;`,
    '',
    ...doc(envelopeDefs.RunEventType!, ''),
    'export type RunEventType = (typeof RUN_EVENT_TYPES)[number];',
    '',
    '/** Every run status (`run-snapshot.schema.json` `properties.status`). */',
    `export const RUN_STATUSES = [${statuses.map(literal).join(', ')}] as const;`,
    '',
    ...doc(statusSchema, ''),
    'export type RunStatus = (typeof RUN_STATUSES)[number];',
    '',
    "/** The statuses a run never leaves (the host's `TERMINAL_RUN_STATUSES`). */",
    `export const TERMINAL_RUN_STATUSES = [${TERMINAL_RUN_STATUSES.map(literal).join(', ')}] as const;`,
    '',
    "/** The run event types after which a run emits nothing (the host's `TERMINAL_RUN_EVENT_TYPES`). */",
    `export const TERMINAL_RUN_EVENT_TYPES = [${TERMINAL_RUN_EVENT_TYPES.map(literal).join(', ')}] as const;`,
    '',
    '/**',
    ' * The payload of each run event type (`run-event-payloads.schema.json` `$defs._typeIndex`);',
    ' * `unknown` for a type the index does not list.',
    ' */',
    'export interface RunEventPayloads {',
    ...eventTypes.map((t) => `  ${literal(t)}: ${payloadOf.get(t)};`),
    '}',
    '',
    ...doc(envelope, '', '`run-event.schema.json`, its `payload` typed by `type`'),
    'export interface RunEventOf<T extends RunEventType> {',
    ...envelopeLines,
    '}',
    '',
    '/** Any run event: a union discriminated by `type`, so `if (e.type === …)` narrows `e.payload`. */',
    'export type RunEvent = { [T in RunEventType]: RunEventOf<T> }[RunEventType];',
    '',
    ...[...emitted.values()],
  ];
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  '$comment',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

function omit(schema: Schema, key: string): Schema {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  // A literal next to its own base type adds nothing but noise.
  const bases = new Set(unique.filter((p) => p === 'string' || p === 'number' || p === 'boolean'));
  const kept = unique.filter(
    (p) => !((p.startsWith("'") && bases.has('string')) || (/^-?\d/.test(p) && bases.has('number'))),
  );
  return kept.join(' | ');
}

function literal(value: unknown): string {
  return typeof value === 'string'
    ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
    : JSON.stringify(value);
}

function propertyName(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : literal(key);
}

function pascal(text: string): string {
  return text
    .replace(/^_+/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** JSDoc lines of a schema: its description, its constraints that the type cannot say, and its source. */
function doc(schema: Schema, indent: string, source?: string): string[] {
  const text: string[] = [];
  if (typeof schema.description === 'string') text.push(schema.description.trim());
  const facts: string[] = [];
  if (typeof schema.format === 'string') facts.push(`format ${schema.format}`);
  if (typeof schema.pattern === 'string') facts.push(`pattern \`${schema.pattern}\``);
  if (schema.minimum !== undefined) facts.push(`minimum ${JSON.stringify(schema.minimum)}`);
  if (schema.maximum !== undefined) facts.push(`maximum ${JSON.stringify(schema.maximum)}`);
  if (schema.default !== undefined) facts.push(`default ${JSON.stringify(schema.default)}`);
  if (facts.length > 0) text.push(`(${facts.join(', ')})`);
  if (source) text.push(`From ${source}.`);
  if (text.length === 0) return [];
  const body = text
    .join('\n\n')
    .replace(/\*\//g, '*\\/')
    .split('\n')
    .map((line) => `${indent} *${line ? ` ${line}` : ''}`.replace(/\s+$/, ''));
  return [`${indent}/**`, ...body, `${indent} */`];
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const target = resolve(root, GENERATED_FILE);
const text = generateRunEventTypes(resolve(root, SCHEMA_DIR));
if (process.argv.includes('--stdout')) {
  process.stdout.write(text);
} else if (process.argv.includes('--check')) {
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current !== text) {
    console.error(`${GENERATED_FILE} is stale: run node tools/sdk/generate-run-event-types.mts`);
    process.exit(1);
  }
  console.log(`${GENERATED_FILE} is up to date`);
} else {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${GENERATED_FILE}`);
}
