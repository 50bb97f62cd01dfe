/**
 * An escalation policy (host extension, ADR 0034) of a node that waits on a person (an approval
 * gate, a clarification gate, a custom interrupt), as a workflow writes it in the node's
 * `config.escalation` and as the interrupt carries it in `data.escalation`:
 *
 * ```json
 * { "reminders": [{ "afterMs": 2000 }], "reassign": { "afterMs": 4000, "approvers": ["lead"] }, "defaultAction": "reject" }
 * ```
 *
 * Reminders at set ages, a reassignment to a next approver list (or a named `group`), and then the
 * node's timeout with its default action. The default action is the timeout's own, per kind
 * ({@link ESCALATION_DEFAULT_ACTIONS_BY_NODE}): an approval gate that times out resolves rejected
 * (fail closed), so `reject` is its only value and silence never approves; a clarification or a
 * custom interrupt that times out expires (the run resumes with outcome timeout), `expire`. Every age
 * is measured from when the interrupt was requested and must fall before the node's timeout when it
 * has one.
 */

// Import-free: `limits.ts` calls this with its bounds (a cycle otherwise).

/** At most this many reminders per gate. */
export const MAX_ESCALATION_REMINDERS = 10;

/** At most this many approvers a reassignment names. */
export const MAX_ESCALATION_APPROVERS = 100;

/** The default actions an escalation may end with: the timeout's own, per kind. */
export const ESCALATION_DEFAULT_ACTIONS = ['reject', 'expire'] as const;

/**
 * The node types an escalation policy may sit on, and the default action of each (its timeout's):
 * the nodes that wait on a person and can carry approvers and a timeout. External events wait on a
 * system; conversations and low-confidence ratifications are left out (ADR 0034).
 */
export const ESCALATION_DEFAULT_ACTIONS_BY_NODE: Readonly<
  Record<string, (typeof ESCALATION_DEFAULT_ACTIONS)[number]>
> = {
  'core.approvalGate': 'reject',
  'core.clarificationGate': 'expire',
  'core.custom': 'expire',
};

export interface EscalationConfigProblem {
  readonly path: string;
  readonly message: string;
}

const FIELDS = ['reminders', 'reassign', 'defaultAction'];
const REASSIGN_FIELDS = ['afterMs', 'approvers', 'group'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** The host's bounds the check applies (`limits.ts`): the longest age and the longest name. */
export interface EscalationBounds {
  readonly maxAgeMs: number;
  readonly maxNameLength: number;
}

/**
 * The problems of a node config's `escalation` (under `path`, e.g. `/nodes/0/config`), or `[]` when
 * it has none or a valid one; ages up to `bounds.maxAgeMs`, names up to `bounds.maxNameLength`. `timeoutMs` is the gate's timeout when it has one: every step's age
 * must fall before it (the timeout is the last step). `typeId` is the node's type (an approval gate
 * when not given): a policy on a type outside {@link ESCALATION_DEFAULT_ACTIONS_BY_NODE} is refused,
 * and the default action must be that type's.
 */
export function escalationConfigProblems(
  config: Record<string, unknown>,
  path: string,
  bounds: EscalationBounds,
  timeoutMs?: number,
  typeId = 'core.approvalGate',
): EscalationConfigProblem[] {
  const MAX_INTERRUPT_TIMEOUT_MS = bounds.maxAgeMs;
  const MAX_ID_LENGTH = bounds.maxNameLength;
  const isAge = (v: unknown): v is number =>
    typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_INTERRUPT_TIMEOUT_MS;
  const isName = (v: unknown): v is string =>
    typeof v === 'string' && v.length >= 1 && v.length <= MAX_ID_LENGTH;
  const escalation = own(config, 'escalation');
  if (escalation === undefined) return [];
  const at = `${path}/escalation`;
  if (!isRecord(escalation)) return [{ path: at, message: 'must be an object' }];
  const problems: EscalationConfigProblem[] = [];
  const ownDefault = Object.hasOwn(ESCALATION_DEFAULT_ACTIONS_BY_NODE, typeId)
    ? ESCALATION_DEFAULT_ACTIONS_BY_NODE[typeId]
    : undefined;
  if (ownDefault === undefined) {
    return [
      {
        path: at,
        message: `is supported on ${Object.keys(ESCALATION_DEFAULT_ACTIONS_BY_NODE).join(', ')} nodes, not ${typeId}`,
      },
    ];
  }
  for (const k of Object.keys(escalation)) {
    if (!FIELDS.includes(k))
      problems.push({ path: `${at}/${k}`, message: `is not a known field (known: ${FIELDS.join(', ')})` });
  }
  const ageProblem = (v: unknown, p: string) => {
    if (!isAge(v))
      problems.push({ path: p, message: `must be an integer from 1 to ${MAX_INTERRUPT_TIMEOUT_MS}` });
    else if (timeoutMs !== undefined && v >= timeoutMs) {
      problems.push({
        path: p,
        message: `must be less than the gate's timeoutMs (${timeoutMs}): the timeout is the last step`,
      });
    }
  };
  const reminders = own(escalation, 'reminders');
  if (reminders !== undefined) {
    if (!Array.isArray(reminders))
      problems.push({ path: `${at}/reminders`, message: 'must be an array of {afterMs}' });
    else if (reminders.length > MAX_ESCALATION_REMINDERS) {
      problems.push({
        path: `${at}/reminders`,
        message: `must have at most ${MAX_ESCALATION_REMINDERS} reminders`,
      });
    } else {
      reminders.forEach((r: unknown, i) => {
        const p = `${at}/reminders/${i}`;
        if (!isRecord(r)) return problems.push({ path: p, message: 'must be an object {afterMs}' });
        for (const k of Object.keys(r))
          if (k !== 'afterMs')
            problems.push({ path: `${p}/${k}`, message: 'is not a known field (known: afterMs)' });
        ageProblem(own(r, 'afterMs'), `${p}/afterMs`);
      });
    }
  }
  const reassign = own(escalation, 'reassign');
  if (reassign !== undefined) {
    const p = `${at}/reassign`;
    if (!isRecord(reassign))
      problems.push({ path: p, message: 'must be an object {afterMs, approvers | group}' });
    else {
      for (const k of Object.keys(reassign)) {
        if (!REASSIGN_FIELDS.includes(k))
          problems.push({
            path: `${p}/${k}`,
            message: `is not a known field (known: ${REASSIGN_FIELDS.join(', ')})`,
          });
      }
      ageProblem(own(reassign, 'afterMs'), `${p}/afterMs`);
      const approvers = own(reassign, 'approvers');
      const group = own(reassign, 'group');
      if ((approvers === undefined) === (group === undefined)) {
        problems.push({ path: p, message: 'must name exactly one of approvers or group' });
      }
      if (
        approvers !== undefined &&
        !(
          Array.isArray(approvers) &&
          approvers.length >= 1 &&
          approvers.length <= MAX_ESCALATION_APPROVERS &&
          approvers.every(isName)
        )
      ) {
        problems.push({
          path: `${p}/approvers`,
          message: `must be 1 to ${MAX_ESCALATION_APPROVERS} names of 1 to ${MAX_ID_LENGTH} characters`,
        });
      }
      if (group !== undefined && !isName(group)) {
        problems.push({ path: `${p}/group`, message: `must be a name of 1 to ${MAX_ID_LENGTH} characters` });
      }
    }
  }
  const defaultAction = own(escalation, 'defaultAction');
  if (defaultAction !== undefined && defaultAction !== ownDefault) {
    problems.push({
      path: `${at}/defaultAction`,
      message:
        ownDefault === 'reject'
          ? "must be reject: an approval gate's timeout resolves rejected (fail closed), and silence never approves"
          : `must be expire: a ${typeId} node's timeout expires the interrupt (the run resumes with outcome timeout)`,
    });
  }
  if (defaultAction !== undefined && timeoutMs === undefined) {
    problems.push({
      path: `${at}/defaultAction`,
      message: 'needs the node to have a timeoutMs: the default action is applied at the timeout',
    });
  }
  return problems;
}
