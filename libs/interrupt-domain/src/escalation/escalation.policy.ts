import { instantAfter } from '@openwop/kernel';
import { isJsonObject } from '../json-value.util';

/** A reminder: the interrupt is still pending at this age; nothing changes but the log and the webhooks. */
export interface ReminderStep {
  readonly kind: 'remind';
  readonly afterMs: number;
}

/** A reassignment: at this age the interrupt's approvers become `approvers`. */
export interface ReassignStep {
  readonly kind: 'reassign';
  readonly afterMs: number;
  readonly approvers: readonly string[];
}

export type EscalationStep = ReminderStep | ReassignStep;

/**
 * An interrupt's escalation policy (`data.escalation`, checked at registration by
 * `escalationConfigProblems`): its timed steps in firing order. The default action is not a step
 * here: it is the gate's timeout (`deadlineAt`), which the durable timer already applies.
 */
export interface EscalationPolicy {
  readonly steps: readonly EscalationStep[];
  /** `reject`: the timeout's own action (fail closed). */
  readonly defaultAction?: 'reject';
}

/** The step due next, its index and when it is due. */
export interface DueEscalationStep {
  readonly index: number;
  readonly step: EscalationStep;
  readonly dueAt: string;
}

const isAge = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

/**
 * Reads an interrupt's `data.escalation` leniently (registration already refused a bad one): steps
 * that do not parse are left out, never guessed. Undefined when the interrupt has no policy. Steps
 * fire by age; at the same age reminders come before the reassignment, in their written order.
 */
export function readEscalationPolicy(data: unknown): EscalationPolicy | undefined {
  if (!isJsonObject(data) || !isJsonObject(data.escalation)) return undefined;
  const e = data.escalation;
  const steps: EscalationStep[] = [];
  if (Array.isArray(e.reminders)) {
    for (const r of e.reminders)
      if (isJsonObject(r) && isAge(r.afterMs)) steps.push({ kind: 'remind', afterMs: r.afterMs });
  }
  if (isJsonObject(e.reassign) && isAge(e.reassign.afterMs)) {
    const { approvers, group } = e.reassign;
    const names = Array.isArray(approvers)
      ? approvers.filter((a): a is string => typeof a === 'string')
      : typeof group === 'string'
        ? [`group:${group}`]
        : [];
    if (names.length > 0) steps.push({ kind: 'reassign', afterMs: e.reassign.afterMs, approvers: names });
  }
  // Stable sort: equal ages keep reminders (pushed first) before the reassignment.
  steps.sort((a, b) => a.afterMs - b.afterMs);
  return { steps, ...(e.defaultAction === 'reject' ? { defaultAction: 'reject' as const } : {}) };
}

/** The instant the interrupt was opened, in ms (its `requestedAt`, else `fallback`). */
export function openedAtMs(requestedAt: string, fallback: string): number {
  const at = Date.parse(requestedAt);
  return Number.isNaN(at) ? Date.parse(fallback) : at;
}

/**
 * The next escalation step of an interrupt opened at `openedAt` (ms) that has done `done` steps, or
 * undefined when every step is done. Steps are done in order, each once: step `done` is the only
 * one that can be next.
 */
export function nextEscalationStep(
  policy: EscalationPolicy | undefined,
  openedAt: number,
  done: number,
): DueEscalationStep | undefined {
  const step = policy?.steps[done];
  if (!step) return undefined;
  return { index: done, step, dueAt: instantAfter(openedAt, step.afterMs) };
}

/** Whether a step due at `dueAt` is due at `now` (ISO instants). */
export function isDue(dueAt: string, now: string): boolean {
  return Date.parse(dueAt) <= Date.parse(now);
}
