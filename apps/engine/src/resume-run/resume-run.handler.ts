import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, ResumeRunCommand } from '@openwop/contracts';
import { decideRun } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate, publicStatus } from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';

/** The reply to `run.resume`; `resumed: false` when the run was not waiting on that interrupt (nothing written). */
export interface ResumeRunResult {
  readonly runId: string;
  readonly resumed: boolean;
  readonly status: string;
  readonly lastSequence: number;
}

/**
 * `run.resume`: the interrupt service decided an interrupt. Records it, re-executes the node (which
 * gets the answer by key) and drives the run on. A resume for an interrupt the run is not waiting on
 * (a duplicate, a stale one) is answered ok and changes nothing.
 */
@Injectable()
export class ResumeRunHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  async handle(manager: EntityManager, command: ResumeRunCommand): Promise<CommandReply<ResumeRunResult>> {
    const d = command.data;
    const state = await loadRunForUpdate(manager, d.runId);
    const decided = await refusingDomainErrors(() =>
      decideRun(
        {
          type: 'ResumeRun',
          runId: d.runId,
          interruptId: d.interruptId,
          outcome: d.outcome,
          ...(d.resumeValue !== undefined ? { resumeValue: d.resumeValue } : {}),
          resolvedBy: d.resolvedBy,
          resolvedAt: d.resolvedAt,
          ...(d.notes ? { notes: d.notes } : {}),
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
      data: {
        runId: d.runId,
        resumed: decided.value.events.length > 0,
        status: publicStatus(next),
        lastSequence: lastSequenceOf(next),
      },
    };
  }
}
