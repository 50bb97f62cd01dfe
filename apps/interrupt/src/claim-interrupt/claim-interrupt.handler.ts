import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type {
  ClaimInterruptCommand,
  ClaimInterruptResult,
  CommandReply,
  ReleaseInterruptCommand,
} from '@openwop/contracts';
import { decideInterrupt, evolveInterrupt, liveClaim } from '@openwop/interrupt-domain';
import { contextOf, decided } from '../common/command-reply.util';
import { InterruptRepository } from '../common/interrupt.repository';
import { CLOCK, type Clock } from '../interrupt.di-tokens';

/**
 * `interrupt.claim` and `interrupt.release` from the gateway: lock the interrupt pending on
 * (run, node), decide, save. The row lock serialises two claimants, so the first claim wins and the
 * second is refused `interrupt_claimed` naming the holder. A refusal writes nothing. A claim is not
 * a decision on the run: nothing goes to the engine or the audit log.
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
    if (next.status !== 'pending') throw new Error(`claim of ${runId}/${nodeId} decided on no pending interrupt`);
    if (events.value.length) await this.interrupts.save(manager, next);
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
}
