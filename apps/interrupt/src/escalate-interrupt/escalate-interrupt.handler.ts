import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  decideInterrupt,
  evolveInterrupt,
  type CommandContext,
  type PendingInterrupt,
} from '@openwop/interrupt-domain';
import { appendToOutbox } from '@openwop/platform-db';
import type { Cause } from '../common/engine-commands.outbox';
import { escalationStepMessages } from '../common/escalation-steps.outbox';
import { InterruptRepository } from '../common/interrupt.repository';

/**
 * The escalation steps due on a pending interrupt (ADR 0034), on a row the caller locked, inside the
 * caller's transaction: the steps are decided (once: the aggregate decides from the next undone
 * step on, every step already due, in order), the state and its next due time saved, and each
 * step's messages put in the outbox in order — `run.escalate` for the run log (the notifier
 * delivers it) and, for a reassignment, its audit fact.
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
      escalationStepMessages(state.interrupt, events, context.principal, context.now, cause),
    );
    return true;
  }
}
