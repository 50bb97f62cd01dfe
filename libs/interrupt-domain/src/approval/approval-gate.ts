import { offeredApprovalActions, type ApprovalResolveAction } from '@openwop/contracts';
import { isJsonObject } from '../json-value.util';

export type { ApprovalResolveAction };

/** An approval interrupt's policy, read from its `data` (`ApprovalData`). */
export interface ApprovalGate {
  readonly offered: ReadonlySet<ApprovalResolveAction>;
  /** Distinct voters whose votes close the gate (default 1). */
  readonly requiredApprovals: number;
  readonly rejectionPolicy: 'single-veto' | 'majority';
  /**
   * `attested` (`data.voterAttribution`): a vote counts for the resume value's `voter`, a name the
   * authenticated principal attests to (a bot relaying a panel's votes), instead of for the principal.
   */
  readonly voterAttribution: 'principal' | 'attested';
  /** Advisory only (spec): recorded for clients, never enforced here. */
  readonly approversList?: readonly string[];
}

/**
 * Reads the gate leniently: the engine already accepted the workflow, so a gate without a usable
 * `actions` list offers accept and reject (the base vocabulary) rather than nothing. `edit` in
 * `actions` (the node-config spelling) offers the `edit-accept` resolution.
 */
export function readApprovalGate(data: unknown): ApprovalGate {
  const d = isJsonObject(data) ? data : {};
  const offered = offeredApprovalActions(d.actions);
  const required = d.requiredApprovals;
  return {
    offered,
    requiredApprovals:
      typeof required === 'number' && Number.isInteger(required) && required >= 1 ? required : 1,
    rejectionPolicy: d.rejectionPolicy === 'majority' ? 'majority' : 'single-veto',
    voterAttribution: d.voterAttribution === 'attested' ? 'attested' : 'principal',
    ...(Array.isArray(d.approversList)
      ? { approversList: d.approversList.filter((a): a is string => typeof a === 'string') }
      : {}),
  };
}
