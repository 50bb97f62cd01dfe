import { conversationTurnProblems } from '@openwop/contracts';
import { ApiError } from './api.error';

/**
 * Refuses a resume value the core could not store: a conversation turn (`{operation, turn}`) whose
 * `ts`, ids or content break the host's limits (`conversationTurnProblems`), as
 * `400 validation_error` before any command is sent. Every resolve route calls it (run-scoped,
 * legacy approvals and the signed-token route).
 *
 * @throws ApiError listing each offending field.
 */
export function assertResumeValueWithinLimits(resumeValue: unknown): void {
  const problems = conversationTurnProblems(resumeValue);
  if (problems.length > 0)
    throw ApiError.validation('The conversation turn is outside the host limits.', problems);
}
