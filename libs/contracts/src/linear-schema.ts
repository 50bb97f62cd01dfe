import { createHash } from 'node:crypto';
import Ajv2020, { type Options, type ValidateFunction } from 'ajv/dist/2020';
import type { Format, FormatDefinition, RegExpEngine, RegExpLike } from 'ajv/dist/types';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import { RE2JS } from 're2js';

/**
 * The one place where the host's JSON Schema validators get their regular-expression engine.
 *
 * Every ajv instance that sees a schema or a value from outside (workflow-supplied `resumeSchema`,
 * clarification question schemas, conversation turn schemas, and the wire schemas that check what
 * callers send) is made by {@link newLinearAjv}: `pattern`, `patternProperties` and the `format`
 * checks run on RE2 (re2js, a pure-JS port), whose matching time is linear in the input. A
 * backtracking engine (V8's) lets a pattern like `^(a+)+$` hold the event loop for seconds on a
 * 30-character answer. What RE2 cannot express (backreferences, lookaround) is refused with
 * {@link UnsupportedPatternError}, never silently accepted.
 */

/** Bounds of one workflow- or user-supplied JSON Schema (checked before it is compiled). */
export const UNTRUSTED_SCHEMA_LIMITS = {
  /**
   * Length of the schema's JSON text. ajv compiles a schema in one synchronous step, roughly 0.1–0.5
   * ms per property with a pattern; 8 KiB (~100 such properties) keeps one compilation to a few ms.
   */
  maxBytes: 8 * 1024,
  /** Nesting depth of objects and arrays in the schema. */
  maxDepth: 32,
  /** Length of one `pattern` (or `patternProperties` key). */
  maxPatternLength: 1024,
  /** Compiled validators kept per process (least recently used are dropped). */
  maxCached: 256,
} as const;

/** A pattern the linear-time engine cannot run (backreference, lookaround, or not a regex). */
export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`pattern ${JSON.stringify(pattern)} is not supported: ${reason}`);
    this.name = 'UnsupportedPatternError';
  }
}

/** A schema that cannot be used: too large, too deep, an unsupported pattern, or not a valid schema. */
export class UntrustedSchemaError extends Error {
  constructor(
    message: string,
    /** JSON pointer inside the schema, when the problem has one place. */
    readonly path = '',
  ) {
    super(message);
    this.name = 'UntrustedSchemaError';
  }
}

const NON_LINEAR = /\\[1-9]|\\k|\(\?<?[=!]/;

/** Compiles an ECMA-262 pattern (JSON Schema's dialect) on RE2; `flags` are RE2JS flags. */
export function compileLinearPattern(pattern: string, flags = 0): RE2JS {
  if (pattern.length > UNTRUSTED_SCHEMA_LIMITS.maxPatternLength) {
    throw new UnsupportedPatternError(
      pattern.slice(0, 64) + '…',
      `longer than ${UNTRUSTED_SCHEMA_LIMITS.maxPatternLength} characters`,
    );
  }
  try {
    // re2js' translation reads `\k` as a literal `k` (legacy non-Unicode syntax); JSON Schema patterns
    // are Unicode-mode, where `\k<name>` is a backreference.
    if (hasNamedBackreference(pattern)) throw new Error('invalid escape sequence: `\\k`');
    return RE2JS.compile(RE2JS.translateRegExp(pattern), flags);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new UnsupportedPatternError(
      pattern,
      NON_LINEAR.test(pattern)
        ? `backreferences and lookaround cannot be matched in linear time (${why})`
        : `not a regular expression this host can match in linear time (${why})`,
    );
  }
}

function hasNamedBackreference(pattern: string): boolean {
  for (let i = 0; i < pattern.length - 1; i++) {
    if (pattern[i] !== '\\') continue;
    if (pattern[i + 1] === 'k') return true;
    i++; // skip the escaped character
  }
  return false;
}

/**
 * ajv's `code.regExp`: patterns compiled on RE2. ajv calls it while compiling a schema (so an
 * unsupported pattern fails the compilation) and keeps one matcher per distinct pattern (keyed by
 * `toString`). `code` is only read by ajv's standalone code generation, which the host does not use.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, _flags: string): RegExpLike => {
    const re = compileLinearPattern(pattern);
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/u` } as RegExpLike;
  },
  { code: 'require("@openwop/contracts").linearRegExp' },
);

function re2Format(source: RegExp, check?: (s: string) => boolean): (s: string) => boolean {
  const flags = (source.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (source.multiline ? RE2JS.MULTILINE : 0);
  const re = RE2JS.compile(RE2JS.translateRegExp(source.source), flags);
  return check ? (s) => check(s) && re.test(s) : (s) => re.test(s);
}

/**
 * ajv-formats' full set with every regular-expression format on RE2. Three formats use lookahead
 * in ajv-formats; here the lookahead's condition is checked in code: `duration` (not just `P`, a
 * digit after `T`), `hostname` (1–253 characters). `url` (deprecated in ajv-formats, and quadratic
 * there: 1.5 s on a 30 kB string) is a `uri` whose scheme is http, https or ftp. `regex` accepts what
 * this host can match ({@link compileLinearPattern}). `date`/`time`/`date-time` and `uri` keep
 * ajv-formats' code: their expressions are anchored with no ambiguous repetition (measured linear).
 */
const LOOKAHEAD_FORMATS = new Set(['duration', 'hostname', 'url']);

function linearFormats(): Record<string, Format> {
  const formats: Record<string, Format> = {};
  for (const [name, def] of Object.entries(fullFormats)) {
    if (LOOKAHEAD_FORMATS.has(name)) continue; // replaced below
    if (def instanceof RegExp) formats[name] = re2Format(def);
    else if (typeof def === 'object' && (def as FormatDefinition<string>).validate instanceof RegExp) {
      const d = def as FormatDefinition<string>;
      formats[name] = { ...d, validate: re2Format(d.validate as RegExp) };
    } else formats[name] = def;
  }
  const uri = fullFormats.uri as (s: string) => boolean;
  formats.duration = re2Format(
    /^P((\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$/,
    (s) => s.length > 1 && (s.indexOf('T') < 0 || /\d/.test(s.charAt(s.indexOf('T') + 1))),
  );
  formats.hostname = re2Format(
    /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i,
    (s) => {
      const n = s.endsWith('.') ? s.length - 1 : s.length;
      return n >= 1 && n <= 253;
    },
  );
  const scheme = re2Format(/^(?:https?|ftp):\/\//i);
  formats.url = (s: string) => scheme(s) && uri(s);
  formats.regex = (s: string) => {
    try {
      compileLinearPattern(s);
      return true;
    } catch {
      return false;
    }
  };
  return formats;
}

let sharedFormats: Record<string, Format> | undefined;

/**
 * A draft 2020-12 ajv whose patterns and formats run in linear time. `strict` is off (workflow
 * schemas carry annotations ajv does not know); other options are the caller's.
 */
export function newLinearAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, ...options, code: { ...options.code, regExp: linearRegExp } });
  // ajv-formats registers its keywords (formatMinimum…); the formats themselves are replaced below.
  addFormats(ajv, { mode: 'fast', keywords: true, formats: [] });
  sharedFormats ??= linearFormats();
  for (const [name, format] of Object.entries(sharedFormats)) ajv.addFormat(name, format);
  return ajv;
}

/**
 * Checks a workflow- or user-supplied schema before it is compiled: JSON text size, nesting depth,
 * and every `pattern` and `patternProperties` key on RE2. Linear in the schema's size.
 * @throws {@link UntrustedSchemaError}
 */
export function assertSchemaBounds(schema: unknown): void {
  const text = JSON.stringify(schema ?? {});
  const { maxBytes, maxDepth } = UNTRUSTED_SCHEMA_LIMITS;
  if (text.length > maxBytes) {
    throw new UntrustedSchemaError(`is larger than ${maxBytes} characters of JSON (${text.length})`);
  }
  const walk = (v: unknown, path: string, depth: number): void => {
    if (typeof v !== 'object' || v === null) return;
    if (depth > maxDepth) throw new UntrustedSchemaError(`is nested deeper than ${maxDepth} levels`, path);
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${path}/${i}`, depth + 1));
      return;
    }
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (key === 'pattern' && typeof value === 'string') checkPattern(value, at);
      if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
        for (const p of Object.keys(value)) checkPattern(p, at);
      }
      walk(value, at, depth + 1);
    }
  };
  walk(schema, '', 0);
}

let metaAjv: Ajv2020 | undefined;

/**
 * Why a workflow-supplied schema cannot be used, or `undefined` when it can: out of bounds, a
 * pattern RE2 cannot run, or not a draft 2020-12 schema (checked against the meta-schema, not
 * compiled). `path` is a JSON pointer inside the schema. Linear in the schema's size.
 */
export function untrustedSchemaProblem(schema: unknown): { path: string; message: string } | undefined {
  try {
    assertSchemaBounds(schema);
  } catch (e) {
    if (e instanceof UntrustedSchemaError) return { path: e.path, message: e.message };
    throw e;
  }
  if (typeof schema === 'boolean') return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { path: '', message: 'must be a JSON Schema object' };
  }
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  metaAjv ??= newLinearAjv({ allErrors: false });
  if (metaAjv.validateSchema(rest) === true) return undefined;
  const first = metaAjv.errors?.[0];
  return {
    path: first?.instancePath ?? '',
    message: `is not a valid JSON Schema: ${first?.message ?? 'invalid'}`,
  };
}

function checkPattern(pattern: string, at: string): void {
  try {
    compileLinearPattern(pattern);
  } catch (e) {
    throw new UntrustedSchemaError(e instanceof Error ? e.message : String(e), at);
  }
}

/**
 * Compiled validators for workflow- and user-supplied schemas, read as draft 2020-12 (a `$schema`
 * naming another draft is ignored). Each schema is bounded ({@link assertSchemaBounds}) and
 * compiled once; validators are kept by the SHA-256 of the schema's JSON text, at most
 * {@link UNTRUSTED_SCHEMA_LIMITS}.maxCached, least recently used dropped (and removed from ajv).
 */
export class UntrustedSchemaCompiler {
  private ajv = UntrustedSchemaCompiler.newAjv();
  private compiledSinceReset = 0;
  private readonly cache = new Map<string, { validate: ValidateFunction; schema: object }>();

  constructor(private readonly maxCached: number = UNTRUSTED_SCHEMA_LIMITS.maxCached) {}

  private static newAjv(): Ajv2020 {
    return newLinearAjv({ allErrors: true, addUsedSchema: false });
  }

  /** How many validators are kept now. */
  get size(): number {
    return this.cache.size;
  }

  /** @throws {@link UntrustedSchemaError} when the schema is out of bounds or does not compile. */
  compile(schema: unknown): ValidateFunction {
    const text = JSON.stringify(schema ?? {});
    const key = createHash('sha256').update(text).digest('base64url');
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit.validate;
    }
    assertSchemaBounds(schema);
    const { $schema: _ignored, ...rest } = (
      typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? schema : {}
    ) as Record<string, unknown>;
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(rest);
    } catch (e) {
      throw new UntrustedSchemaError(
        `is not a valid JSON Schema (${e instanceof Error ? e.message : String(e)})`,
      );
    }
    this.cache.set(key, { validate, schema: rest });
    if (this.cache.size > this.maxCached) {
      const [oldest, entry] = this.cache.entries().next().value as [string, { schema: object }];
      this.cache.delete(oldest);
      this.ajv.removeSchema(entry.schema);
    }
    // ajv keeps a little per compilation beyond its schema cache; a fresh instance now and then
    // bounds it (validators already compiled keep working without their instance).
    if (++this.compiledSinceReset >= this.maxCached * 4) {
      this.ajv = UntrustedSchemaCompiler.newAjv();
      this.compiledSinceReset = 0;
    }
    return validate;
  }
}
