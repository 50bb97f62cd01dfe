import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { COMMAND_NOT_APPLIED, type CommandReply, type FailRunCommand } from '@openwop/contracts';
import { decideRun } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate, publicStatus } from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';

/**
 * `run.fail`: a command that carried the run forward was set aside (dead-lettered) by the service
 * that could not apply it. The run ends `failed` (`error.code` `command_not_applied`, the reason in
 * `error.message`) with the usual `run.failed` event, so projections, tokens and interrupts settle.
 * A terminal run is left as it is (answered ok); an unknown one is refused `not_found`.
 */
@Injectable()
export class FailRunHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  async handle(
    manager: EntityManager,
    command: FailRunCommand,
  ): Promise<CommandReply<{ runId: string; status: string; lastSequence: number }>> {
    const d = command.data;
    const state = await loadRunForUpdate(manager, d.runId);
    const what = d.failedCommandType ?? 'a command of the run';
    const decided = await refusingDomainErrors(() =>
      decideRun(
        {
          type: 'FailRun',
          runId: d.runId,
          error: {
            code: COMMAND_NOT_APPLIED,
            message: `${what} could not be applied: ${d.reason}`,
            retryable: false,
            details: {
              ...(d.failedCommandId !== undefined ? { commandId: d.failedCommandId } : {}),
              ...(d.failedCommandType !== undefined ? { commandType: d.failedCommandType } : {}),
            },
          },
          context: commandContext(command, this.clock),
        },
        state,
      ),
    );
    if (!decided.ok) return decided.reply;
    await commitDecision(manager, state, decided.value, command);
    const next = decided.value.state;
    return {
      ok: true,
      data: { runId: d.runId, status: publicStatus(next), lastSequence: lastSequenceOf(next) },
    };
  }
}
