import type { RecordEscalationCommand } from '@openwop/contracts';
import type { InterruptEvent, InterruptFacts } from '@openwop/interrupt-domain';
import type { OutboxMessage } from '@openwop/platform-db';
import { reassignFact } from './audit-facts.outbox';
import { toEngine, type Cause } from './engine-commands.outbox';

/**
 * The outbox messages of the escalation steps among `events` (ADR 0034), in the events' order:
 * per step, `run.escalate` for the run log (the notifier delivers it) and, for a reassignment, its
 * audit fact. Used by every decision that can decide steps — the timer's escalation pass and the
 * expiry, which decides the steps still due before its own `run.resume` — so each step has the same
 * messages whoever decided it. Each step's ids derive from (interrupt, step): `run.escalate` is
 * `escalate:<interruptId>:<step>` (the engine's command seam dedupes it) and the audit fact
 * `reassign:<interruptId>:<step>`, so a step is recorded once even if it were ever sent twice.
 */
export function escalationStepMessages(
  interrupt: InterruptFacts,
  events: readonly InterruptEvent[],
  principal: string,
  now: string,
  cause: Cause,
): OutboxMessage[] {
  const { interruptId, runId, nodeId, tenant } = interrupt;
  const messages: OutboxMessage[] = [];
  for (const event of events) {
    if (event.type !== 'interrupt.reminded' && event.type !== 'interrupt.reassigned') continue;
    const { step, ageMs } = event.data;
    const payload =
      event.type === 'interrupt.reminded'
        ? { step, ageMs, ...(event.data.approvers ? { approvers: [...event.data.approvers] } : {}) }
        : {
            step,
            ageMs,
            approvers: [...event.data.approvers],
            ...(event.data.previousApprovers ? { previousApprovers: [...event.data.previousApprovers] } : {}),
          };
    const command: RecordEscalationCommand = {
      id: `escalate:${interruptId}:${step}`,
      type: 'run.escalate',
      occurredAt: now,
      correlationId: cause.correlationId,
      causationId: cause.id,
      actor: { tenant, principal },
      data: { runId, nodeId, interruptId, type: event.type, payload },
    };
    messages.push(toEngine(runId, command));
    if (event.type === 'interrupt.reassigned') messages.push(reassignFact(interrupt, event, principal));
  }
  return messages;
}
