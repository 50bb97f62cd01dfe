import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, FireTimerCommand } from '@openwop/contracts';
import { decideRun } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate, publicStatus } from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';

/** The reply to `run.timer`; `fired: false` when the run no longer waited on that timer (nothing written). */
export interface FireTimerResult {
  readonly runId: string;
  readonly fired: boolean;
  readonly status: string;
  readonly lastSequence: number;
}

/**
 * `run.timer`: a durable timer fell due. Records the firing and drives the run on (or, while the run
 * is paused, only records it). A run that no longer waits on that timer is answered ok, unchanged.
 */
@Injectable()
export class FireTimerHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  async handle(manager: EntityManager, command: FireTimerCommand): Promise<CommandReply<FireTimerResult>> {
    const { runId, timerKey } = command.data;
    const state = await loadRunForUpdate(manager, runId);
    const decided = await refusingDomainErrors(() =>
      decideRun({ type: 'FireTimer', runId, timerKey, context: commandContext(command, this.clock) }, state),
    );
    if (!decided.ok) return decided.reply;
    await commitDecision(manager, state, decided.value, command);
    const next = decided.value.state;
    return {
      ok: true,
      data: {
        runId,
        fired: decided.value.events.length > 0,
        status: publicStatus(next),
        lastSequence: lastSequenceOf(next),
      },
    };
  }
}
