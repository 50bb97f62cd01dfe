import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RecordEscalationCommand } from '@openwop/contracts';
import {
  decideInterrupt,
  evolveInterrupt,
  type CommandContext,
  type InterruptEvent,
  type PendingInterrupt,
} from '@openwop/interrupt-domain';
import { appendToOutbox, type OutboxMessage } from '@openwop/platform-db';
import { reassignFact } from '../common/audit-facts.outbox';
import { toEngine, type Cause } from '../common/engine-commands.outbox';
import { InterruptRepository } from '../common/interrupt.repository';

/**
 * One escalation step of a pending interrupt (ADR 0034), on a row the caller locked, inside the
 * caller's transaction: the step is decided (once: the aggregate decides only the next undone, due
 * step), the state and its next due time saved, and the step's messages put in the outbox —
 * `run.escalate` for the run log (the notifier delivers it) and, for a reassignment, its audit fact.
 */
@Injectable()
export class EscalateInterruptHandler {
  constructor(private readonly interrupts: InterruptRepository) {}

  /** Returns whether a step was decided. */
  async escalate(
    manager: EntityManager,
    state: PendingInterrupt,
    context: CommandContext,
    cause: Cause,
  ): Promise<boolean> {
    const { interruptId } = state.interrupt;
    const step = state.escalated ?? 0;
    const events = decideInterrupt({ type: 'EscalateInterrupt', interruptId, step, context }, state);
    if (events.length === 0) {
      // Not due after all (the column is stale): saving writes the due time the state implies.
      await this.interrupts.save(manager, state);
      return false;
    }
    const next = events.reduce(evolveInterrupt, state);
    if (next.status === 'none') return false;
    await this.interrupts.save(manager, next);
    await appendToOutbox(
      manager,
      events.flatMap((e) => this.messagesOf(state, e, context, cause)),
    );
    return true;
  }

  private messagesOf(
    state: PendingInterrupt,
    event: InterruptEvent,
    context: CommandContext,
    cause: Cause,
  ): OutboxMessage[] {
    if (event.type !== 'interrupt.reminded' && event.type !== 'interrupt.reassigned') return [];
    const { interruptId, runId, nodeId, tenant } = state.interrupt;
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
      occurredAt: context.now,
      correlationId: cause.correlationId,
      causationId: cause.id,
      actor: { tenant, principal: context.principal },
      data: { runId, nodeId, interruptId, type: event.type, payload },
    };
    const messages = [toEngine(runId, command)];
    if (event.type === 'interrupt.reassigned')
      messages.push(reassignFact(state.interrupt, event, context.principal));
    return messages;
  }
}
