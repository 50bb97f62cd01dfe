import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { newLinearAjv } from './linear-schema';
import errorEnvelopeSchema from './schemas/error-envelope.schema.json';
import runEventSchema from './schemas/run-event.schema.json';
import type { RunEventDoc } from './run-event';

const ajv = newLinearAjv({ allErrors: true });

const runEventValidator = ajv.compile<RunEventDoc>(runEventSchema);
const errorEnvelopeValidator = ajv.compile(errorEnvelopeSchema);

/** One schema violation, as carried in `details.errors` of a `validation_error`. */
export interface SchemaViolation {
  readonly path: string;
  readonly message: string;
}

/** Thrown where a message at a producer or consumer edge breaks the wire contract. */
export class SchemaValidationError extends Error {
  constructor(
    readonly schema: string,
    readonly violations: readonly SchemaViolation[],
  ) {
    super(`${schema} violated: ${violations.map((v) => `${v.path || '/'} ${v.message}`).join('; ')}`);
    this.name = 'SchemaValidationError';
  }
}

function violations(errors: ErrorObject[] | null | undefined): SchemaViolation[] {
  return (errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? 'invalid' }));
}

function assertValid<T>(validator: ValidateFunction<T>, name: string, value: unknown): T {
  if (!validator(value)) throw new SchemaValidationError(name, violations(validator.errors));
  return value;
}

/** Validates a run event against `run-event.schema.json`; throws {@link SchemaValidationError}. */
export function assertRunEvent(value: unknown): RunEventDoc {
  return assertValid(runEventValidator, 'RunEventDoc', value);
}

/** Validates an error body against `error-envelope.schema.json`. */
export function assertErrorEnvelope(value: unknown): { error: string; message: string; details?: object } {
  return assertValid(errorEnvelopeValidator, 'ErrorEnvelope', value) as {
    error: string;
    message: string;
    details?: object;
  };
}
