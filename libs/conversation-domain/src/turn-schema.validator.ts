import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Violation } from './conversation.errors';
import type { TurnSchema } from './conversation.types';

/** Compiled validators by schema text; a schema is compiled once per process. */
const MAX_CACHED = 500;
let ajv = newAjv();
let cache = new Map<string, ValidateFunction>();

function newAjv(): Ajv2020 {
  const instance = new Ajv2020({ allErrors: true, strict: false, addUsedSchema: false });
  addFormats(instance);
  return instance;
}

/**
 * Compiles a workflow-declared turn schema (read as draft 2020-12; a `$schema` naming another
 * draft is ignored), or returns why it cannot be compiled.
 */
export function compileTurnSchema(schema: TurnSchema): ValidateFunction | string {
  const text = JSON.stringify(schema);
  const hit = cache.get(text);
  if (hit) return hit;
  if (cache.size >= MAX_CACHED) {
    ajv = newAjv();
    cache = new Map();
  }
  try {
    const { $schema: _ignored, ...rest } = schema;
    const validate = ajv.compile(rest);
    cache.set(text, validate);
    return validate;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** The violations of `content` against `schema`, paths prefixed with `at`. */
export function contentViolations(schema: TurnSchema, content: unknown, at: string): Violation[] {
  const validate = compileTurnSchema(schema);
  // The schema compiled when the conversation opened; failing now would be a process-level bug.
  if (typeof validate === 'string') return [{ path: at, message: `cannot be checked: ${validate}` }];
  if (validate(content)) return [];
  return (validate.errors ?? []).map((e) => ({
    path: `${at}${e.instancePath}`,
    message: e.message ?? 'is invalid',
  }));
}
