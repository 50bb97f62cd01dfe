import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, RecordConversationCommand } from '@openwop/contracts';
import { decideRun } from '@openwop/engine-domain';
import { annotateConversation } from '@openwop/observability';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate } from '../common/run.store';

export interface RecordConversationResult {
  readonly runId: string;
  readonly recorded: boolean;
  readonly lastSequence: number;
}

/**
 * `run.converse` from the interrupt service's outbox: append the decided turn or close to the run
 * log (idempotent by turn index) and, in the same transaction, what the node's agents do next.
 */
@Injectable()
export class RecordConversationHandler {
  async handle(
    manager: EntityManager,
    command: RecordConversationCommand,
  ): Promise<CommandReply<RecordConversationResult>> {
    const d = command.data;
    const turn = (d.payload.turn ?? d.payload.finalTurn) as { turnIndex?: unknown } | undefined;
    annotateConversation(d.payload.conversationId, d.payload.turnIndex ?? turn?.turnIndex);
    const state = await loadRunForUpdate(manager, d.runId);
    const decided = await refusingDomainErrors(() =>
      decideRun(
        {
          type: 'RecordConversation',
          runId: d.runId,
          nodeId: d.nodeId,
          interruptId: d.interruptId,
          eventType: d.type,
          payload: d.payload,
          context: commandContext(command),
        },
        state,
      ),
    );
    if (!decided.ok) return decided.reply;
    await commitDecision(manager, state, decided.value, command);
    return {
      ok: true,
      data: {
        runId: d.runId,
        recorded: decided.value.events.length > 0,
        lastSequence: lastSequenceOf(decided.value.state),
      },
    };
  }
}
