import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CancelRunAtInterruptCommand, CommandReply } from '@openwop/contracts';
import { decideInterrupt, evolveInterrupt } from '@openwop/interrupt-domain';
import { appendToOutbox } from '@openwop/platform-db';
import { cancelFact } from '../common/audit-facts.outbox';
import { contextOf, refusal } from '../common/command-reply.util';
import { forwardedCancel } from '../common/engine-commands.outbox';
import { InterruptRepository } from '../common/interrupt.repository';
import { CLOCK, type Clock } from '../interrupt.di-tokens';

export interface CancelRunResult {
  readonly runId: string;
  readonly status: 'cancelling';
  /** The interrupts this cancel closed. */
  readonly cancelledInterrupts: readonly string[];
}

/**
 * `run.cancel` from the gateway: cancel the run's pending interrupts (a later resolve gets
 * `409 interrupt_already_resolved`, RFC 0213), remember the run as cancelled (an interrupt the engine opens afterwards
 * is born cancelled), and forward `run.cancel` to the engine, which decides unknown or terminal runs.
 * The cancel's audit fact goes in the outbox with the forward.
 */
@Injectable()
export class CancelRunHandler {
  constructor(
    private readonly interrupts: InterruptRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async handle(
    manager: EntityManager,
    command: CancelRunAtInterruptCommand,
  ): Promise<CommandReply<CancelRunResult>> {
    const { runId, reason, parentRunId } = command.data;
    const { tenant } = command.actor;
    if (await this.interrupts.heldByOtherTenant(manager, runId, tenant)) {
      return refusal('not_found', `Run ${runId} was not found.`, { runId });
    }
    const now = this.clock.now();
    const cancelled: string[] = [];
    for (const state of await this.interrupts.lockPendingOfRun(manager, runId)) {
      const events = decideInterrupt(
        {
          type: 'CancelInterrupt',
          ...(reason !== undefined ? { reason } : {}),
          ...(parentRunId !== undefined ? { parentRunId } : {}),
          context: contextOf(command, now),
        },
        state,
      );
      const next = events.reduce(evolveInterrupt, state);
      if (next.status === 'none' || events.length === 0) continue;
      await this.interrupts.save(manager, next);
      cancelled.push(next.interrupt.interruptId);
    }
    await this.interrupts.markRunCancelled(manager, runId, tenant, reason);
    await appendToOutbox(manager, [forwardedCancel(command, now), cancelFact(command, cancelled, now)]);
    return { ok: true, data: { runId, status: 'cancelling', cancelledInterrupts: cancelled } };
  }
}
