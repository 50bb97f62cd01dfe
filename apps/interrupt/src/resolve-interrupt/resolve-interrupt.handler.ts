import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, ResolveInterruptCommand, ResolveInterruptResult } from '@openwop/contracts';
import { isConversationResolve } from '@openwop/conversation-domain';
import { decideInterrupt, evolveInterrupt, liveClaim } from '@openwop/interrupt-domain';
import { appendToOutbox } from '@openwop/platform-db';
import { resolveFact } from '../common/audit-facts.outbox';
import { contextOf, decided } from '../common/command-reply.util';
import { resumeMessages } from '../common/engine-commands.outbox';
import { InterruptRepository } from '../common/interrupt.repository';
import { annotateInterrupt, interruptEnded } from '../common/interrupt.telemetry';
import { ConversationGate } from '../converse/conversation.gate';
import { CLOCK, type Clock } from '../interrupt.di-tokens';

/**
 * `interrupt.resolve` from the gateway: lock the addressed interrupt, decide, save, and when the
 * interrupt is decided put `run.resume` in the outbox. A vote short of quorum or an `ask` is saved
 * and answered `pending`. A decision or a vote puts its audit fact in the outbox with it. A refusal
 * is the reply and writes nothing.
 */
@Injectable()
export class ResolveInterruptHandler {
  constructor(
    private readonly interrupts: InterruptRepository,
    private readonly conversations: ConversationGate,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async handle(
    manager: EntityManager,
    command: ResolveInterruptCommand,
  ): Promise<CommandReply<ResolveInterruptResult>> {
    const { runId, nodeId, interruptId, resumeValue, via, credentialCheckedFor } = command.data;
    const state = interruptId
      ? await this.interrupts.lockById(manager, interruptId)
      : await this.interrupts.lockForResolve(manager, runId, nodeId);
    if (
      state.status !== 'none' &&
      state.interrupt.kind.startsWith('conversation.') &&
      isConversationResolve(resumeValue)
    ) {
      return this.conversations.resolve(manager, state, command, contextOf(command, this.clock.now()));
    }
    const context = contextOf(command, this.clock.now());
    // Someone else's live claim does not stop an answer; the answer carries it as a warning (ADR 0035).
    const claim = state.status === 'pending' ? liveClaim(state, context.now) : undefined;
    const claimedByOther = claim && claim.claimedBy !== context.principal ? claim : undefined;
    const events = decided(() =>
      decideInterrupt(
        {
          type: 'ResolveInterrupt',
          runId,
          nodeId,
          ...(interruptId ? { interruptId } : {}),
          resumeValue,
          via,
          ...(credentialCheckedFor !== undefined ? { credentialCheckedFor } : {}),
          context,
        },
        state,
      ),
    );
    if (!events.ok) return events.reply;
    const next = events.value.reduce(evolveInterrupt, state);
    if (next.status === 'none') throw new Error(`resolve of ${runId}/${nodeId} decided on no interrupt`);
    await this.interrupts.save(manager, next);
    if (next.status === 'resolved') interruptEnded(next.interrupt, 'resolved', this.clock.now());
    else annotateInterrupt(next.interrupt);
    await appendToOutbox(manager, [
      ...resumeMessages(next, command),
      ...resolveFact(command, via, next.interrupt, events.value, resumeValue, context.now),
    ]);
    return {
      ok: true,
      data: {
        runId,
        nodeId,
        interruptId: next.interrupt.interruptId,
        status: next.status === 'resolved' ? 'resolved' : 'pending',
        ...(claimedByOther
          ? { claimedBy: claimedByOther.claimedBy, claimExpiresAt: claimedByOther.expiresAt }
          : {}),
      },
    };
  }
}
