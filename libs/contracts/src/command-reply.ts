import type { CommandReply } from './envelope';
import type { SchemaValidationError } from './schema-validation';

/** A refusal reply: the command changed nothing, and `code` is mapped once at the gateway. */
export function refusal(
  code: string,
  message: string,
  details?: Record<string, unknown>,
): CommandReply<never> {
  return { ok: false, error: { code, message, ...(details ? { details } : {}) } };
}

/** The refusal of a command that broke the wire contract at a consumer edge. */
export function validationRefusal(error: SchemaValidationError): CommandReply<never> {
  return refusal('validation_error', error.message, { errors: error.violations });
}
