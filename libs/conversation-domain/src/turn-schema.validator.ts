import { UntrustedSchemaCompiler, UntrustedSchemaError } from '@openwop/contracts';
import type { ValidateFunction } from 'ajv/dist/2020';
import type { Violation } from './conversation.errors';
import type { TurnSchema } from './conversation.types';

/**
 * Compiled validators of workflow-declared turn schemas: bounded, linear-time patterns and
 * formats, each schema compiled once (least recently used dropped past the bound).
 */
const schemas = new UntrustedSchemaCompiler();

/**
 * Compiles a workflow-declared turn schema (read as draft 2020-12; a `$schema` naming another
 * draft is ignored), or returns why it cannot be compiled.
 */
export function compileTurnSchema(schema: TurnSchema): ValidateFunction | string {
  try {
    return schemas.compile(schema);
  } catch (e) {
    if (!(e instanceof UntrustedSchemaError)) throw e;
    return e.message;
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
