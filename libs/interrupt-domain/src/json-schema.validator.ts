import { UntrustedSchemaCompiler, UntrustedSchemaError } from '@openwop/contracts';
import type { ValidateFunction } from 'ajv/dist/2020';
import { InvalidResumeValue, type Violation } from './interrupt.errors';

/**
 * Compiled validators of workflow-supplied schemas: bounded, linear-time patterns and formats,
 * each schema compiled once (least recently used dropped past the bound).
 */
const schemas = new UntrustedSchemaCompiler();

/**
 * The violations of `value` against a workflow-supplied JSON Schema, paths prefixed with `at`.
 * Schemas are read as draft 2020-12 (a `$schema` naming another draft is ignored).
 * @throws {@link InvalidResumeValue} when the schema itself cannot be used (does not compile, is
 * out of bounds, or has a pattern that cannot be matched in linear time): the interrupt cannot
 * accept any answer, which the resolver must hear rather than a silent pass.
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
  try {
    return schemas.compile(schema);
  } catch (e) {
    if (!(e instanceof UntrustedSchemaError)) throw e;
    throw InvalidResumeValue.at(at, `cannot be checked: its schema ${e.message}`);
  }
}
