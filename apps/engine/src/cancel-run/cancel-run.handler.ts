import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CancelRunEngineCommand, CommandReply } from '@openwop/contracts';
import { decideRun } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate } from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';

/**
 * `run.cancel` (forwarded by the interrupt service once it cancelled the run's interrupts): the
 * pending node is cancelled, then the run. A terminal run is refused `run_terminal`, an unknown one
 * `not_found`; refusals write nothing.
 */
@Injectable()
export class CancelRunHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  async handle(
    manager: EntityManager,
    command: CancelRunEngineCommand,
  ): Promise<CommandReply<{ runId: string; status: string; lastSequence: number }>> {
    const { runId, reason, parentRunId } = command.data;
    const state = await loadRunForUpdate(manager, runId);
    const decided = await refusingDomainErrors(() =>
      decideRun(
        {
          type: 'CancelRun',
          runId,
          ...(reason ? { reason } : {}),
          ...(parentRunId ? { parentRunId } : {}),
          context: commandContext(command, this.clock),
        },
        state,
      ),
    );
    if (!decided.ok) return decided.reply;
    await commitDecision(manager, state, decided.value, command);
    return {
      ok: true,
      data: { runId, status: 'cancelled', lastSequence: lastSequenceOf(decided.value.state) },
    };
  }
}
