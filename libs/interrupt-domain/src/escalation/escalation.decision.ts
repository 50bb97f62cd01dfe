import { readApprovalGate } from '../approval/approval-gate';
import type { InterruptReassigned, InterruptReminded } from '../interrupt.events';
import { evolveInterrupt, type PendingInterrupt } from '../interrupt.state';
import {
  isDue,
  nextEscalationStep,
  openedAtMs,
  readEscalationPolicy,
  type DueEscalationStep,
} from './escalation.policy';

/**
 * Every escalation step of a pending interrupt that is due at `now` and not done yet, in order,
 * each its own event (ADR 0034): the next undone step (`escalated`) first, then each following one
 * whose age has passed. A timer that gets to the interrupt late — it was down, or the interrupt
 * opened late — so fires the whole overdue part of the chain, never just its first step. Each
 * event is folded into the state before the next is decided, so a reminder after a reassignment
 * names the new approvers. Empty when no step is due.
 */
export function dueEscalationEvents(
  state: PendingInterrupt,
  now: string,
): (InterruptReminded | InterruptReassigned)[] {
  const policy = readEscalationPolicy(state.interrupt.data);
  const openedAt = openedAtMs(state.interrupt.requestedAt, now);
  const events: (InterruptReminded | InterruptReassigned)[] = [];
  let current = state;
  for (;;) {
    const due = nextEscalationStep(policy, openedAt, current.escalated ?? 0);
    if (!due || !isDue(due.dueAt, now)) return events;
    const event = stepEvent(current, due, openedAt, now);
    events.push(event);
    // A step never ends the wait: the state stays pending, one step further.
    current = evolveInterrupt(current, event) as PendingInterrupt;
  }
}

/** The event of step `due` on `state` at `now`: a reminder naming the approvers of the moment, or a reassignment. */
function stepEvent(
  state: PendingInterrupt,
  due: DueEscalationStep,
  openedAt: number,
  now: string,
): InterruptReminded | InterruptReassigned {
  const ageMs = Math.max(0, Date.parse(now) - openedAt);
  const current = readApprovalGate(state.interrupt.data).approversList;
  if (due.step.kind === 'remind') {
    return {
      type: 'interrupt.reminded',
      data: {
        step: due.index,
        ageMs,
        ...(current !== undefined ? { approvers: [...current] } : {}),
        remindedAt: now,
      },
    };
  }
  return {
    type: 'interrupt.reassigned',
    data: {
      step: due.index,
      ageMs,
      approvers: [...due.step.approvers],
      ...(current !== undefined ? { previousApprovers: [...current] } : {}),
      reassignedAt: now,
    },
  };
}
