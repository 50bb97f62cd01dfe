import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, OpenInterruptCommand } from '@openwop/contracts';
import { decideInterrupt, evolveInterrupt, type InterruptStatus } from '@openwop/interrupt-domain';
import { contextOf } from '../common/command-reply.util';
import { InterruptRepository } from '../common/interrupt.repository';
import { interruptOpened } from '../common/interrupt.telemetry';
import { ConversationGate } from '../converse/conversation.gate';
import { CLOCK, type Clock } from '../interrupt.di-tokens';

export interface OpenInterruptResult {
  readonly interruptId: string;
  readonly status: InterruptStatus;
}

/**
 * `interrupt.open` from the engine's outbox: hold a new pending interrupt (idempotent by
 * interruptId). The envelope's actor is the run's owner, whose tenant the interrupt keeps.
 */
@Injectable()
export class OpenInterruptHandler {
  constructor(
    private readonly interrupts: InterruptRepository,
    private readonly conversations: ConversationGate,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async handle(
    manager: EntityManager,
    command: OpenInterruptCommand,
  ): Promise<CommandReply<OpenInterruptResult>> {
    const {
      interruptId,
      runId,
      nodeId,
      kind,
      key,
      resumeSchema,
      timeoutMs,
      requestedAt,
      hostData,
      protocolMajor,
    } = command.data;
    // Host extensions the wire's data of this kind does not allow join the service's own copy (ADR 0034).
    const data =
      hostData && isRecord(command.data.data) ? { ...command.data.data, ...hostData } : command.data.data;
    const held = await this.interrupts.lockByIdForOpen(manager, interruptId, runId, command.actor.tenant);
    const state = held.state;
    const runCancelled = state.status === 'none' && held.runCancelled;
    const events = decideInterrupt(
      {
        type: 'OpenInterrupt',
        interrupt: {
          interruptId,
          runId,
          nodeId,
          kind,
          key,
          data,
          requestedAt,
          ...(resumeSchema ? { resumeSchema } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          // A major-2 run's interrupt always enforces its approvers (RFC 0173 §B), fixed here for its life.
          ...(protocolMajor === 2 ? { protocolMajor: 2 as const } : {}),
        },
        runCancelled,
        context: contextOf(command, this.clock.now()),
      },
      state,
    );
    const next = events.reduce(evolveInterrupt, state);
    if (events.length > 0 && next.status !== 'none') {
      await this.interrupts.save(manager, next);
      if (command.data.conversation) await this.conversations.open(manager, next, command.data.conversation);
      if (next.status === 'pending') interruptOpened(next.interrupt);
    }
    return { ok: true, data: { interruptId, status: next.status } };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
