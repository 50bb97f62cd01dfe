import { legacyApprovalAction, offeredApprovalActions } from '@openwop/contracts';

/** The four exit actions of an approval (`interrupt.md` §ApprovalResume); `ask` never resumes a node. */
export type ApprovalExit = 'accept' | 'reject' | 'refine' | 'edit-accept';

/** `interrupt.resolved.decision` of an approval (RFC 0223 names `rejected` for a reject). */
export type ApprovalDecision = 'approved' | 'rejected' | 'changes-requested';

/**
 * The action of an approval resume value, mapping the legacy `decision` vocabulary
 * (`interrupt.md` §Backward-compat mapping, the contracts' {@link legacyApprovalAction}: blank
 * feedback is none, and `rejected` with feedback stays `reject` on a gate that offers reject but not
 * refine) when `action` is absent. `gateActions` is the gate's `data.actions`. Unknown shapes read as
 * `reject`: an approval gate fails closed.
 */
export function approvalActionOf(resume: unknown, gateActions: unknown): ApprovalExit {
  const r = (typeof resume === 'object' && resume !== null ? resume : {}) as Record<string, unknown>;
  switch (r.action) {
    case 'accept':
    case 'reject':
    case 'refine':
    case 'edit-accept':
      return r.action;
    case 'edit':
      return 'edit-accept';
  }
  const legacy = legacyApprovalAction(r.decision, r.feedback, offeredApprovalActions(gateActions));
  return legacy.ok ? legacy.action : 'reject';
}

export function approvalDecisionOf(action: ApprovalExit): ApprovalDecision {
  switch (action) {
    case 'accept':
    case 'edit-accept':
      return 'approved';
    case 'reject':
      return 'rejected';
    case 'refine':
      return 'changes-requested';
  }
}
