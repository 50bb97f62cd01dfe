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

/**
 * The code of a command its service could not apply: its handler kept failing (not a refusal, not
 * an outage), or it was not readable. The gateway answers it as the spec's `validation_error` (400):
 * the request holds something the host cannot process, and retrying it unchanged will not help.
 */
export const COMMAND_NOT_APPLIED = 'command_not_applied';

/** The refusal a requester gets when its command went to the dead-letter topic instead of being applied. */
export function notAppliedRefusal(details: {
  readonly messageId?: string;
  readonly messageType?: string;
  readonly cause: string;
  readonly attempts: number;
}): CommandReply<never> {
  const what = details.messageType ?? 'the command';
  return refusal(
    COMMAND_NOT_APPLIED,
    `${what} could not be applied (${details.cause} after ${details.attempts} attempt${details.attempts === 1 ? '' : 's'}); it was set aside, not retried`,
    { ...details },
  );
}
