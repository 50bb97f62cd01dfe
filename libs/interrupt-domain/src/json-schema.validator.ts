import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { InvalidResumeValue, type Violation } from './interrupt.errors';

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
 * The violations of `value` against a workflow-supplied JSON Schema, paths prefixed with `at`.
 * Schemas are read as draft 2020-12 (a `$schema` naming another draft is ignored).
 * @throws {@link InvalidResumeValue} when the schema itself does not compile: the interrupt
 * cannot accept any answer, which the resolver must hear rather than a silent pass.
 */
export function schemaViolations(schema: unknown, value: unknown, at = ''): Violation[] {
  const validate = compiled(schema, at);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => ({
    path: `${at}${e.instancePath}`,
    message: e.message ?? 'is invalid',
  }));
}

function compiled(schema: unknown, at: string): ValidateFunction {
  const text = JSON.stringify(schema ?? {});
  const hit = cache.get(text);
  if (hit) return hit;
  if (cache.size >= MAX_CACHED) {
    ajv = newAjv();
    cache = new Map();
  }
  let validate: ValidateFunction;
  try {
    const { $schema: _ignored, ...rest } = (
      typeof schema === 'object' && schema !== null ? schema : {}
    ) as Record<string, unknown>;
    validate = ajv.compile(rest);
  } catch (e) {
    throw InvalidResumeValue.at(
      at,
      `cannot be checked: its schema is invalid (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  cache.set(text, validate);
  return validate;
}
