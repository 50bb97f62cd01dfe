import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, RecordConversationCommand } from '@openwop/contracts';
import { annotateConversation } from '@openwop/observability';
import { recordOnRun, type RecordedOnRun } from '../common/record-on-run';
import { CLOCK, type Clock } from '../engine.di-tokens';

export type RecordConversationResult = RecordedOnRun;

/**
 * `run.converse` from the interrupt service's outbox: append the decided turn or close to the run
 * log (idempotent by turn index) and, in the same transaction, what the node's agents do next.
 */
@Injectable()
export class RecordConversationHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  handle(
    manager: EntityManager,
    command: RecordConversationCommand,
  ): Promise<CommandReply<RecordConversationResult>> {
    const d = command.data;
    const turn = (d.payload.turn ?? d.payload.finalTurn) as { turnIndex?: unknown } | undefined;
    annotateConversation(d.payload.conversationId, d.payload.turnIndex ?? turn?.turnIndex);
    return recordOnRun(manager, command, this.clock, (base) => ({
      ...base,
      type: 'RecordConversation',
      eventType: command.data.type,
    }));
  }
}
