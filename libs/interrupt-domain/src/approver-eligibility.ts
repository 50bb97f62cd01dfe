import type { InterruptFacts } from './interrupt.commands';
import { NotAnApprover } from './interrupt.errors';
import { isJsonObject } from './json-value.util';

/** The prefix of an approvers list entry that names a group rather than a principal (ADR 0034, 0035). */
export const GROUP_PREFIX = 'group:';

/** Who acts, as the decider sees it: the authenticated principal and the groups the host gave it. */
export interface Approver {
  readonly principal: string;
  /** Group names (without {@link GROUP_PREFIX}) from the host's principal configuration, never from a request. */
  readonly groups?: readonly string[];
}

/** The kinds whose approvers list a gate may enforce: the ones answered by a person through a resolve. */
const ENFORCEABLE_KINDS: readonly string[] = ['approval', 'clarification', 'custom'];

/**
 * `data.approverPolicy: 'enforced'` on an interrupt with an `approversList` makes the list a rule,
 * not a hint: only an admitted principal may claim, vote, ask or resolve. The spec leaves
 * `approversList` advisory for the engine and the host the authority at resolve time
 * (`interrupt.md`); advisory stays this host's default. An enforced interrupt without a list admits
 * nobody.
 */
export function enforcedApprovers(interrupt: InterruptFacts): readonly string[] | undefined {
  const d = interrupt.data;
  if (!ENFORCEABLE_KINDS.includes(interrupt.kind) || !isJsonObject(d) || d.approverPolicy !== 'enforced')
    return undefined;
  return Array.isArray(d.approversList)
    ? d.approversList.filter((a): a is string => typeof a === 'string')
    : [];
}

/**
 * The entry of `listed` that admits `who`: the principal named directly (preferred), else the first
 * `group:<name>` entry naming one of its groups; undefined when none does. Membership is the one the
 * command carries (resolved by the host when it authenticated the caller), so a decision is judged
 * on the membership of its moment and never re-resolved on replay (RFC 0104).
 */
export function admittingEntry(listed: readonly string[], who: Approver): string | undefined {
  if (listed.includes(who.principal)) return who.principal;
  const groups = new Set(who.groups ?? []);
  return listed.find(
    (entry) => entry.startsWith(GROUP_PREFIX) && groups.has(entry.slice(GROUP_PREFIX.length)),
  );
}

/**
 * Refuses (403 `forbidden`) a principal an enforced approvers list does not admit. Returns the
 * admitting entry of an enforced list (for the audit record), undefined for an advisory one.
 */
export function assertEligibleApprover(interrupt: InterruptFacts, who: Approver): string | undefined {
  const listed = enforcedApprovers(interrupt);
  if (listed === undefined) return undefined;
  const entry = admittingEntry(listed, who);
  if (entry === undefined) throw new NotAnApprover(interrupt.interruptId, who.principal);
  return entry;
}
