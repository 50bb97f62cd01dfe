import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, PauseRunCommand, RunControlResult, UnpauseRunCommand } from '@openwop/contracts';
import { decideRun, initialRunState, type RunState } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate, publicStatus } from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';

/**
 * `run.pause` and `run.unpause` (`POST /v1/runs/{runId}:pause` / `:resume`): an operator pauses a
 * run or resumes it. Refusals (`not_found`, `run_terminal`, `run_already_paused`, `run_not_paused`)
 * write nothing.
 */
@Injectable()
export class PauseRunHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  async pause(manager: EntityManager, command: PauseRunCommand): Promise<CommandReply<RunControlResult>> {
    const { runId, reason, drainPolicy } = command.data;
    const context = commandContext(command, this.clock);
    const state = visibleTo(await loadRunForUpdate(manager, runId), context.tenant);
    const decided = await refusingDomainErrors(() =>
      decideRun(
        { type: 'PauseRun', runId, drainPolicy, ...(reason !== undefined ? { reason } : {}), context },
        state,
      ),
    );
    if (!decided.ok) return decided.reply;
    await commitDecision(manager, state, decided.value, command);
    const next = decided.value.state;
    return {
      ok: true,
      data: { runId, status: publicStatus(next), at: context.now, lastSequence: lastSequenceOf(next) },
    };
  }

  async unpause(manager: EntityManager, command: UnpauseRunCommand): Promise<CommandReply<RunControlResult>> {
    const { runId, reason } = command.data;
    const context = commandContext(command, this.clock);
    const state = visibleTo(await loadRunForUpdate(manager, runId), context.tenant);
    const decided = await refusingDomainErrors(() =>
      decideRun({ type: 'UnpauseRun', runId, ...(reason !== undefined ? { reason } : {}), context }, state),
    );
    if (!decided.ok) return decided.reply;
    await commitDecision(manager, state, decided.value, command);
    const next = decided.value.state;
    return {
      ok: true,
      data: { runId, status: publicStatus(next), at: context.now, lastSequence: lastSequenceOf(next) },
    };
  }
}

/** Another tenant's run is, to this caller, no run at all (`not_found`, as the gateway answers it). */
function visibleTo(state: RunState, tenant: string): RunState {
  return state.status !== 'none' && state.tenant !== tenant ? initialRunState() : state;
}
