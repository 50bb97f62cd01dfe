import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, ExpireInterruptCommand } from '@openwop/contracts';
import {
  decideInterrupt,
  evolveInterrupt,
  type CommandContext,
  type InterruptState,
  type InterruptStatus,
} from '@openwop/interrupt-domain';
import { appendToOutbox } from '@openwop/platform-db';
import { expireFact } from '../common/audit-facts.outbox';
import { contextOf } from '../common/command-reply.util';
import { resumeMessages, type Cause } from '../common/engine-commands.outbox';
import { escalationStepMessages } from '../common/escalation-steps.outbox';
import { InterruptRepository } from '../common/interrupt.repository';
import { interruptEnded } from '../common/interrupt.telemetry';
import { ConversationGate } from '../converse/conversation.gate';
import { CLOCK, type Clock } from '../interrupt.di-tokens';

export interface ExpireInterruptResult {
  readonly interruptId: string;
  readonly status: InterruptStatus;
}

/**
 * `interrupt.expire`: a pending interrupt past its deadline ends with outcome `timeout` and the
 * engine gets `run.resume` (an approval gate then resolves rejected, fail closed); anything else
 * is a no-op. The escalation steps not done yet (a timer that got there late) are decided first, in
 * the same transaction, and their messages precede the resume (ADR 0034). Used by the command topic
 * and by the durable timer, on rows the caller locked.
 */
@Injectable()
export class ExpireInterruptHandler {
  constructor(
    private readonly interrupts: InterruptRepository,
    private readonly conversations: ConversationGate,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async handle(
    manager: EntityManager,
    command: ExpireInterruptCommand,
  ): Promise<CommandReply<ExpireInterruptResult>> {
    const { interruptId, runId } = command.data;
    const state = await this.interrupts.lockById(manager, interruptId);
    const addressed = state.status !== 'none' && state.interrupt.runId === runId;
    const next = addressed
      ? await this.expire(manager, state, contextOf(command, this.clock.now()), command)
      : state;
    return { ok: true, data: { interruptId, status: next.status } };
  }

  /** Expires `state` (locked by the caller) inside the caller's transaction. */
  async expire(
    manager: EntityManager,
    state: InterruptState,
    context: CommandContext,
    cause: Cause,
  ): Promise<InterruptState> {
    if (state.status === 'none') return state;
    const events = decideInterrupt(
      { type: 'ExpireInterrupt', interruptId: state.interrupt.interruptId, context },
      state,
    );
    if (events.length === 0) return state;
    const next = events.reduce(evolveInterrupt, state);
    if (next.status === 'none') return state;
    // A conversation interrupt closes its conversation first (RFC 0005 §I): run.converse before run.resume.
    const closing =
      state.interrupt.kind === 'conversation.exchange'
        ? await this.conversations.expire(manager, state, context.now, cause)
        : [];
    await this.interrupts.save(manager, next);
    interruptEnded(next.interrupt, 'timeout', context.now);
    await appendToOutbox(manager, [
      // The escalation steps still due, each once and in order, before the default (ADR 0034).
      ...escalationStepMessages(state.interrupt, events, context.principal, context.now, cause),
      ...closing,
      ...resumeMessages(next, cause),
      expireFact(next.interrupt, context.principal, context.now),
    ]);
    return next;
  }
}
