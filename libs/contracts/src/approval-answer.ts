/**
 * What an approval answer may say, and the legacy `decision` vocabulary (`interrupt.md`
 * §Backward-compat mapping) mapped onto it: the one copy the interrupt service (which parses
 * answers) and the engine (which reads the resume value it recorded) both use.
 */

/** The actions an approval answer may carry: the four exits and the `ask` side channel. */
export const APPROVAL_RESOLVE_ACTIONS = ['accept', 'reject', 'refine', 'edit-accept', 'ask'] as const;
export type ApprovalResolveAction = (typeof APPROVAL_RESOLVE_ACTIONS)[number];

/**
 * The actions a gate offers, from its `data.actions`, read leniently: the engine already accepted
 * the workflow, so a gate without a usable list offers accept and reject (the base vocabulary)
 * rather than nothing; `edit` (the node-config spelling) offers the `edit-accept` resolution.
 */
export function offeredApprovalActions(actions: unknown): ReadonlySet<ApprovalResolveAction> {
  const listed = Array.isArray(actions) ? actions.filter((a): a is string => typeof a === 'string') : [];
  const offered = new Set<ApprovalResolveAction>();
  for (const action of listed) {
    const resolveAs = action === 'edit' ? 'edit-accept' : action;
    if ((APPROVAL_RESOLVE_ACTIONS as readonly string[]).includes(resolveAs))
      offered.add(resolveAs as ApprovalResolveAction);
  }
  if (offered.size === 0) {
    offered.add('accept');
    offered.add('reject');
  }
  return offered;
}

/** The action a legacy answer stands for, or why it cannot stand for one (a JSON pointer and a reason). */
export type LegacyApprovalMapping =
  | { readonly ok: true; readonly action: 'accept' | 'reject' | 'refine' }
  | { readonly ok: false; readonly path: '/action' | '/decision'; readonly message: string };

/**
 * Maps a legacy approval answer (`decision` and no `action`): `approved` is `accept`; `rejected`
 * with feedback that is not blank is `refine` when the gate offers it (or offers no `reject`),
 * else `reject` carrying the feedback, so a legacy client can still reject an accept/reject gate
 * with a reason; `rejected` without feedback is `reject`. `timeout` and `cancelled` are decided by
 * the host, never submitted; anything else is not a legacy answer.
 */
export function legacyApprovalAction(
  decision: unknown,
  feedback: unknown,
  offered: ReadonlySet<string>,
): LegacyApprovalMapping {
  switch (decision) {
    case 'approved':
      return { ok: true, action: 'accept' };
    case 'rejected': {
      const withText = typeof feedback === 'string' && feedback.trim() !== '';
      return {
        ok: true,
        action: withText && (offered.has('refine') || !offered.has('reject')) ? 'refine' : 'reject',
      };
    }
    case 'timeout':
    case 'cancelled':
      return { ok: false, path: '/decision', message: `${decision} is decided by the host, not submitted` };
    case undefined:
      return { ok: false, path: '/action', message: 'is required' };
    default:
      return { ok: false, path: '/decision', message: 'must be approved or rejected' };
  }
}
