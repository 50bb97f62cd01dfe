import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type {
  ClaimInterruptCommand,
  ClaimInterruptResult,
  CommandReply,
  ReleaseInterruptCommand,
} from '@openwop/contracts';
import {
  decideInterrupt,
  evolveInterrupt,
  liveClaim,
  type CommandContext,
  type PendingInterrupt,
} from '@openwop/interrupt-domain';
import { appendToOutbox } from '@openwop/platform-db';
import { claimMessages } from '../common/claim-events.outbox';
import type { Cause } from '../common/engine-commands.outbox';
import { contextOf, decided } from '../common/command-reply.util';
import { InterruptRepository } from '../common/interrupt.repository';
import { CLOCK, type Clock } from '../interrupt.di-tokens';

/**
 * `interrupt.claim` and `interrupt.release` from the gateway: lock the interrupt pending on
 * (run, node), decide, save. The row lock serialises two claimants, so the first claim wins and the
 * second is refused `interrupt_claimed` naming the holder. A refusal writes nothing. A claim is not
 * a decision on the run (nothing goes to the audit log), but watchers see it: each claim change goes
 * to the engine as `run.escalate` for the run log, in the same transaction (ADR 0035). The interrupt
 * timer ends lapsed leases through {@link expireLapsed}.
 */
@Injectable()
export class ClaimInterruptHandler {
  constructor(
    private readonly interrupts: InterruptRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async handle(
    manager: EntityManager,
    command: ClaimInterruptCommand | ReleaseInterruptCommand,
  ): Promise<CommandReply<ClaimInterruptResult>> {
    const { runId, nodeId } = command.data;
    const state = await this.interrupts.lockForResolve(manager, runId, nodeId);
    const context = contextOf(command, this.clock.now());
    const events = decided(() =>
      decideInterrupt(
        command.type === 'interrupt.claim'
          ? {
              type: 'ClaimInterrupt',
              runId,
              nodeId,
              ...(command.data.leaseMs !== undefined ? { leaseMs: command.data.leaseMs } : {}),
              context,
            }
          : { type: 'ReleaseInterrupt', runId, nodeId, context },
        state,
      ),
    );
    if (!events.ok) return events.reply;
    const next = events.value.reduce(evolveInterrupt, state);
    if (next.status !== 'pending')
      throw new Error(`claim of ${runId}/${nodeId} decided on no pending interrupt`);
    if (events.value.length) {
      await this.interrupts.save(manager, next);
      await appendToOutbox(
        manager,
        claimMessages(next, events.value, context, { id: command.id, correlationId: command.correlationId }),
      );
    }
    const claim = liveClaim(next, context.now);
    return {
      ok: true,
      data: {
        runId,
        nodeId,
        interruptId: next.interrupt.interruptId,
        ...(claim ? { claimedBy: claim.claimedBy, claimExpiresAt: claim.expiresAt } : {}),
      },
    };
  }

  /**
   * The timer reached the end of the lease on a row the caller locked, inside the caller's
   * transaction: a lapsed claim still in the state ends with an `expired` release (saved, and told
   * to the run log); a renewed or ended claim decides nothing. Returns whether it decided.
   */
  async expireLapsed(
    manager: EntityManager,
    state: PendingInterrupt,
    context: CommandContext,
    cause: Cause,
  ): Promise<boolean> {
    const events = decideInterrupt(
      { type: 'ExpireClaim', interruptId: state.interrupt.interruptId, context },
      state,
    );
    const next = events.reduce(evolveInterrupt, state);
    // Nothing decided: saving rewrites the claim columns from the state (a stale column stops being due).
    if (next.status === 'none') return false;
    await this.interrupts.save(manager, next);
    if (events.length === 0) return false;
    await appendToOutbox(manager, claimMessages(state, events, context, cause));
    return true;
  }
}
