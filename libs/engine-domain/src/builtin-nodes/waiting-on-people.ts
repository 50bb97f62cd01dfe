/**
 * The host-extension fields of a node that waits on a person (ADR 0034, 0035), copied from its
 * config into its interrupt's `hostData` when present (the wire's `data` of a clarification or a
 * custom interrupt allows no extra field; the interrupt service merges them into its copy of the
 * data): who may answer (`approversList`, RFC 0104's `approverGroupRefs` and `approverRoleRefs`,
 * and `approverPolicy: 'enforced'` to make that a rule on a major-1 run) and the escalation policy the interrupt
 * service runs on its timer. Registration already checked the policy (`escalationConfigProblems`).
 */
export function waitingOnPeople(config: Record<string, unknown>): Record<string, unknown> {
  const fields = [
    'approversList',
    'approverGroupRefs',
    'approverRoleRefs',
    'approverPolicy',
    'escalation',
  ] as const;
  return Object.fromEntries(fields.filter((k) => config[k] !== undefined).map((k) => [k, config[k]]));
}
