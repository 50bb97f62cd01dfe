import type { ApprovalExitAction, ApprovalVote } from '../interrupt.events';
import type { ApprovalGate } from './approval-gate';

/** Which side of the gate a vote counts for: refine sends the artifact back, so it counts as a reject. */
export function sideOf(action: ApprovalExitAction): 'approve' | 'reject' {
  return action === 'accept' || action === 'edit-accept' ? 'approve' : 'reject';
}

/**
 * Whether `votes` (distinct principals, the newest last) close the gate (ADR 0005).
 * - `single-veto`: one reject-side vote closes it; otherwise `requiredApprovals` approvals do.
 * - `majority`: it closes when either side first reaches `requiredApprovals` votes.
 * With `requiredApprovals` 1 both policies close on the first vote.
 */
export function quorumCloses(votes: readonly ApprovalVote[], gate: ApprovalGate): boolean {
  const last = votes[votes.length - 1];
  if (!last) return false;
  const side = sideOf(last.action);
  if (side === 'reject' && gate.rejectionPolicy === 'single-veto') return true;
  return votes.filter((v) => sideOf(v.action) === side).length >= gate.requiredApprovals;
}
