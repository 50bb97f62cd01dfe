import { UsageError } from '../util/exit-codes';

/**
 * The approval actions `--action` takes: the five of `interrupt.md` §"kind: approval" (`edit` is the
 * CLI's word for the wire's `edit-accept`, which is accepted too).
 */
export const APPROVAL_ACTIONS = ['accept', 'reject', 'refine', 'edit', 'edit-accept', 'ask'] as const;

const KNOWN: ReadonlySet<string> = new Set(APPROVAL_ACTIONS);

/**
 * The resume value of `--action` (with `--feedback`), checked before any request is made.
 * @throws {@link UsageError} for an action outside {@link APPROVAL_ACTIONS}, and for an edit, which
 *   needs the edited artifact (`--value '{"action":"edit-accept","editedArtifactData":…}'`).
 */
export function approvalValueOf(action: string, feedback: string | undefined): Record<string, unknown> {
  if (!KNOWN.has(action)) {
    throw new UsageError(
      `--action ${JSON.stringify(action)} is not an approval action; use one of ${APPROVAL_ACTIONS.join(', ')}`,
    );
  }
  switch (action) {
    case 'refine':
      return { action, refineFeedback: { scope: 'whole', text: feedback ?? '' } };
    case 'ask':
      return { action, question: feedback ?? '' };
    case 'edit':
    case 'edit-accept':
      throw new UsageError(
        'an edit needs the edited artifact: --value \'{"action":"edit-accept","editedArtifactData":…}\'',
      );
    default:
      return { action, ...(feedback ? { feedback } : {}) };
  }
}
