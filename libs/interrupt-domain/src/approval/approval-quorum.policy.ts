import type { ApprovalExitAction, ApprovalVote } from '../interrupt.events';
import type { ApprovalGate } from './approval-gate';

/** Which side of the gate a vote counts for: refine sends the artifact back, so it counts as a reject. */
export function sideOf(action: ApprovalExitAction): 'approve' | 'reject' {
  return action === 'accept' || action === 'edit-accept' ? 'approve' : 'reject';
}

/**
 * Reject-side votes that close a `majority` gate: a majority of the `requiredApprovals` panel
 * (2 of 3, 2 of 2, 3 of 4, 3 of 5), after which the approvals it needs can no longer all come from it.
 */
export function majorityRejections(requiredApprovals: number): number {
  return Math.floor(requiredApprovals / 2) + 1;
}

/**
 * Whether `votes` (distinct voters, the newest last) close the gate (ADR 0005).
 * - `single-veto`: one reject-side vote closes it; otherwise `requiredApprovals` approvals do.
 * - `majority`: `requiredApprovals` approvals close it accepted; a majority of that panel
 *   ({@link majorityRejections}) closes it rejected, whichever comes first.
 * With `requiredApprovals` 1 both policies close on the first vote.
 */
export function quorumCloses(votes: readonly ApprovalVote[], gate: ApprovalGate): boolean {
  const last = votes[votes.length - 1];
  if (!last) return false;
  const side = sideOf(last.action);
  if (side === 'reject' && gate.rejectionPolicy === 'single-veto') return true;
  const needed = side === 'reject' ? majorityRejections(gate.requiredApprovals) : gate.requiredApprovals;
  return votes.filter((v) => sideOf(v.action) === side).length >= needed;
}
