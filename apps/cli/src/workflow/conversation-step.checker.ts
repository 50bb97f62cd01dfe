import { conversationStepProblems } from '@openwop/contracts';
import type { Diagnostic } from './diagnostic';
import type { WorkflowSource } from './workflow-source';

/**
 * The findings about `agent.conversation` steps (the contracts' {@link conversationStepProblems},
 * the same checks workflow registration makes, plus a required `provider`), each placed at its line
 * and column in the file.
 */
export function checkConversationSteps(
  definition: Record<string, unknown>,
  source: WorkflowSource,
): Diagnostic[] {
  return conversationStepProblems(definition, { requireProvider: true }).map((problem) => {
    const pos = source.positionOf(problem.pointer);
    return { ...problem, line: pos.line, col: pos.col };
  });
}
