import type { InterruptFacts } from './interrupt.commands';
import { NotAnApprover } from './interrupt.errors';
import { isJsonObject } from './json-value.util';

/** The prefix of an approvers list entry that names a group rather than a principal (ADR 0034, 0035). */
export const GROUP_PREFIX = 'group:';
/** The prefix of an eligibility entry that names a role (a major-2 interrupt's `approverRoleRefs`, RFC 0104). */
export const ROLE_PREFIX = 'role:';

/**
 * The ref kinds a major-2 interrupt's eligibility follows (interrupt.md §Approver enforcement):
 * `approversList` principals, `approverGroupRefs` and `approverRoleRefs`. What the v2 discovery's
 * `interrupt.refKinds` may name once every decision route enforces them.
 */
export const ENFORCED_REF_KINDS = ['principal', 'group', 'role'] as const;

/** Who acts, as the decider sees it: the authenticated principal and the groups the host gave it. */
export interface Approver {
  readonly principal: string;
  /** Group names (without {@link GROUP_PREFIX}) from the host's principal configuration, never from a request. */
  readonly groups?: readonly string[];
  /** Role names (without {@link ROLE_PREFIX}) from the host's principal configuration, never from a request. */
  readonly roles?: readonly string[];
}

/** The kinds whose approvers list a gate may enforce: the ones answered by a person through a resolve. */
const ENFORCEABLE_KINDS: readonly string[] = ['approval', 'clarification', 'custom'];

/**
 * The eligibility entries an interrupt enforces, or undefined when it enforces none.
 *
 * - A run of major 1 (ADR 0035): `data.approverPolicy: 'enforced'` on an interrupt with an
 *   `approversList` makes the list a rule, not a hint. The v1 spec leaves `approversList` advisory
 *   for the engine and the host the authority at resolve time (`interrupt.md`); advisory stays the
 *   default there, and RFC 0104's refs are not read.
 * - A run of major 2 (`protocolMajor: 2`, ADR 0041; RFC 0173 §B, v2 interrupt.md §Approver
 *   enforcement): eligibility is always the rule. `approversList` binds as it stands;
 *   `approverGroupRefs` and `approverRoleRefs` (RFC 0104) add `group:<ref>` and `role:<ref>`
 *   entries. An interrupt with none of the three and no `approverPolicy: 'enforced'` admits anyone
 *   the route admits; `approverPolicy: 'advisory'` relaxes nothing.
 *
 * Only the kinds a person answers through a resolve enforce. An enforced interrupt without a list
 * admits nobody.
 */
export function enforcedApprovers(interrupt: InterruptFacts): readonly string[] | undefined {
  const d = interrupt.data;
  if (!ENFORCEABLE_KINDS.includes(interrupt.kind) || !isJsonObject(d)) return undefined;
  if (interrupt.protocolMajor === 2) {
    const refs = ['approversList', 'approverGroupRefs', 'approverRoleRefs'] as const;
    if (d.approverPolicy !== 'enforced' && refs.every((f) => d[f] === undefined)) return undefined;
    return [
      ...strings(d.approversList),
      ...strings(d.approverGroupRefs).map((g) => `${GROUP_PREFIX}${g}`),
      ...strings(d.approverRoleRefs).map((r) => `${ROLE_PREFIX}${r}`),
    ];
  }
  return d.approverPolicy === 'enforced' ? strings(d.approversList) : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
}

/**
 * The entry of `listed` that admits `who`: the principal named directly (preferred), else the first
 * `group:<name>` entry naming one of its groups or `role:<name>` entry naming one of its roles;
 * undefined when none does. Membership is the one the
 * command carries (resolved by the host when it authenticated the caller), so a decision is judged
 * on the membership of its moment and never re-resolved on replay (RFC 0104).
 */
export function admittingEntry(listed: readonly string[], who: Approver): string | undefined {
  if (listed.includes(who.principal)) return who.principal;
  const groups = new Set(who.groups ?? []);
  const roles = new Set(who.roles ?? []);
  return listed.find(
    (entry) =>
      (entry.startsWith(GROUP_PREFIX) && groups.has(entry.slice(GROUP_PREFIX.length))) ||
      (entry.startsWith(ROLE_PREFIX) && roles.has(entry.slice(ROLE_PREFIX.length))),
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
