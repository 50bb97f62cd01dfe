import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, RecordEscalationCommand } from '@openwop/contracts';
import { decideRun } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate } from '../common/run.store';

export interface RecordEscalationResult {
  readonly runId: string;
  readonly recorded: boolean;
  readonly lastSequence: number;
}

/**
 * `run.escalate` from the interrupt service's outbox (ADR 0034): append the decided escalation step
 * to the run log, the run log's single writer being the engine, so the notifier can deliver it.
 * Once per step: the command id derives from (interrupt, step) and the seam dedupes it.
 */
@Injectable()
export class RecordEscalationHandler {
  async handle(manager: EntityManager, command: RecordEscalationCommand): Promise<CommandReply<RecordEscalationResult>> {
    const d = command.data;
    const state = await loadRunForUpdate(manager, d.runId);
    const decided = await refusingDomainErrors(() =>
      decideRun(
        {
          type: 'RecordEscalation',
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
      data: { runId: d.runId, recorded: decided.value.events.length > 0, lastSequence: lastSequenceOf(decided.value.state) },
    };
  }
}
