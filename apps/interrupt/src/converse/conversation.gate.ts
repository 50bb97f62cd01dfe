import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, ResolveInterruptCommand, ResolveInterruptResult } from '@openwop/contracts';
import {
  closureOf,
  conversationAddressed,
  conversationResolveResult,
  converseCommand,
  decideConversation,
  evolveConversation,
  initialConversationState,
  lastRecordedTurn,
  parseConversationResolve,
  recordedTurn,
  silenceAuditCommand,
  silenceOfOpening,
  type ConversationEvent,
  type ConversationHome,
  type ConversationOpened,
  type HeldConversation,
} from '@openwop/conversation-domain';
import {
  decideInterrupt,
  evolveInterrupt,
  type CommandContext,
  type InterruptState,
} from '@openwop/interrupt-domain';
import { appendToOutbox, type OutboxMessage } from '@openwop/platform-db';
import { decided } from '../common/command-reply.util';
import { ConversationRepository } from '../common/conversation.repository';
import { resumeMessages, toEngine, type Cause } from '../common/engine-commands.outbox';
import { InterruptRepository, type HeldInterrupt } from '../common/interrupt.repository';
import { conversationTurnRecorded, interruptEnded } from '../common/interrupt.telemetry';

/**
 * The conversation side of the interrupt gate (RFC 0005, ADR 0011). A conversation interrupt holds
 * one conversation; `exchange` records a turn and leaves the interrupt pending, `close` records the
 * closing turn and resolves the interrupt with the closure, a deadline closes it with `outcome: null`.
 * Each decided conversation event goes to the engine as `run.converse` (the engine writes the run
 * log), in the same transaction as the state, before any `run.resume`.
 */
@Injectable()
export class ConversationGate {
  constructor(
    private readonly conversations: ConversationRepository,
    private readonly interrupts: InterruptRepository,
  ) {}

  /** `interrupt.open` of a conversation interrupt: hold the conversation the engine opened. */
  async open(manager: EntityManager, held: HeldInterrupt, opened: Record<string, unknown>): Promise<void> {
    const event = { type: 'conversation.opened', data: opened } as unknown as ConversationOpened;
    const state = evolveConversation(initialConversationState(), event);
    if (state.status === 'not-open') return;
    const existing = await this.conversations.lockByInterrupt(manager, held.interrupt.interruptId, []);
    if (existing.status !== 'not-open') return;
    // maxSilenceMs rides on the state (evolve spreads it along), so every save re-arms the silence audit.
    await this.conversations.save(
      manager,
      homeOf(held),
      { ...state, ...silenceOfOpening(opened) },
      0,
      String(opened.openedAt),
    );
  }

  /** A `ConversationResolve` on a conversation interrupt. */
  async resolve(
    manager: EntityManager,
    interrupt: InterruptState,
    command: ResolveInterruptCommand,
    context: CommandContext,
  ): Promise<CommandReply<ResolveInterruptResult>> {
    const { runId, nodeId } = command.data;
    // Addressed first: another tenant learns nothing of the interrupt, not even how it would parse.
    if (
      interrupt.status === 'none' ||
      !conversationAddressed(interrupt, { runId, nodeId, tenant: context.tenant })
    ) {
      // The interrupt's own refusal: not found (or another tenant's), or cancelled with its run.
      const refused = decided(() =>
        decideInterrupt({ type: 'ResolveInterrupt', runId, nodeId, resumeValue: null, context }, interrupt),
      );
      if (!refused.ok) return refused.reply;
      throw new Error(`conversation resolve of ${runId}/${nodeId} was neither addressed nor refused`);
    }
    const parsed = decided(() =>
      parseConversationResolve(command.data.resumeValue as Record<string, unknown>),
    );
    if (!parsed.ok) return parsed.reply;
    const resolve = parsed.value;
    const ids = resolve.turn ? [resolve.turn.messageId] : [];
    const state = await this.conversations.lockByInterrupt(manager, interrupt.interrupt.interruptId, ids);
    const now = context.now;
    const events = decided(() =>
      decideConversation(
        resolve.operation === 'exchange'
          ? { type: 'ExchangeTurn', turn: resolve.turn, now }
          : {
              type: 'CloseConversation',
              outcome: resolve.outcome,
              ...(resolve.turn ? { finalTurn: resolve.turn } : {}),
              ...(resolve.reason ? { reason: resolve.reason } : {}),
              now,
            },
        state,
      ),
    );
    if (!events.ok) return events.reply;
    const base = { runId, nodeId, interruptId: interrupt.interrupt.interruptId };
    if (state.status === 'not-open') throw new Error('unreachable: a decided conversation is open');
    const conversationId = state.conversationId;
    if (events.value.length === 0) {
      // A retried turn: answer with the turn first recorded under its messageId.
      const turn = resolve.turn ? recordedTurn(state, resolve.turn.messageId) : undefined;
      return {
        ok: true,
        data: conversationResolveResult(base, resolve.operation === 'close', conversationId, turn),
      };
    }
    const next = events.value.reduce(evolveConversation, state) as HeldConversation;
    const messages = events.value.map((e) => converse(e, interrupt, now, command));
    if (next.status === 'closed') {
      const resumed = decided(() =>
        decideInterrupt(
          { type: 'ResolveInterrupt', runId, nodeId, resumeValue: closureOf(next), context },
          interrupt,
        ),
      );
      if (!resumed.ok) return resumed.reply;
      const after = resumed.value.reduce(evolveInterrupt, interrupt);
      if (after.status === 'none') throw new Error('unreachable');
      await this.interrupts.save(manager, after);
      interruptEnded(after.interrupt, 'resolved', now);
      messages.push(...resumeMessages(after, command));
    }
    await this.conversations.save(manager, homeOf(interrupt), next, state.nextTurnIndex, now);
    await appendToOutbox(manager, messages);
    const turn = lastRecordedTurn(events.value);
    conversationTurnRecorded(interrupt.interrupt, conversationId, turn?.turnIndex);
    return {
      ok: true,
      data: conversationResolveResult(base, next.status === 'closed', conversationId, turn),
    };
  }

  /**
   * The deadline of a conversation interrupt passed: close the conversation (`outcome: null`, a
   * system final turn) before the interrupt expires. Returns the `run.converse` to send first.
   */
  async expire(
    manager: EntityManager,
    interrupt: HeldInterrupt,
    now: string,
    cause: Cause,
  ): Promise<OutboxMessage[]> {
    const state = await this.conversations.lockByInterrupt(manager, interrupt.interrupt.interruptId, []);
    const events = decideConversation({ type: 'ExpireConversation', now }, state);
    if (events.length === 0 || state.status === 'not-open') return [];
    const next = events.reduce(evolveConversation, state) as HeldConversation;
    await this.conversations.save(manager, homeOf(interrupt), next, state.nextTurnIndex, now);
    return events.map((e) => converse(e, interrupt, now, cause));
  }
}

/**
 * The silence audits of conversations nobody spoke in for their `maxSilenceMs` (claimed by the
 * timer): one `run.converse` of type `conversation.silence` each, which the engine records as a
 * `log.appended` warning. The conversation goes on; its next turn re-arms the audit.
 */
export async function silenceAudits(
  repository: ConversationRepository,
  manager: EntityManager,
  now: string,
  limit: number,
): Promise<OutboxMessage[]> {
  const silent = await repository.claimSilent(manager, now, limit);
  return silent.map((c) => toEngine(c.home.runId, silenceAuditCommand(c, now)));
}

function homeOf(held: HeldInterrupt): ConversationHome {
  const i = held.interrupt;
  return { interruptId: i.interruptId, runId: i.runId, nodeId: i.nodeId, tenant: i.tenant };
}

function converse(event: ConversationEvent, held: HeldInterrupt, now: string, cause: Cause): OutboxMessage {
  return toEngine(held.interrupt.runId, converseCommand(event, homeOf(held), now, cause));
}
