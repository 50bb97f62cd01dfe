import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ChildRunChangedCommand, CommandReply, InterruptKind } from '@openwop/contracts';
import { decideRun, type ChildRunChange } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate, publicStatus } from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';

/** The reply to `run.child`; `applied: false` when the run no longer waited on that child (nothing written). */
export interface ChildRunChangedResult {
  readonly runId: string;
  readonly applied: boolean;
  readonly status: string;
  readonly lastSequence: number;
}

/**
 * `run.child` (from a child run's decision, through the outbox): the child the run waits on changed
 * status. Its wait shows on the run's node; when it ended, the node goes on with its outcome. A
 * change of a child the run no longer waits on is answered ok and changes nothing.
 */
@Injectable()
export class ChildRunChangedHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  async handle(
    manager: EntityManager,
    command: ChildRunChangedCommand,
  ): Promise<CommandReply<ChildRunChangedResult>> {
    const d = command.data;
    const state = await loadRunForUpdate(manager, d.runId);
    const change: ChildRunChange = {
      childRunId: d.childRunId,
      status: d.status,
      ...(d.interruptId !== undefined ? { interruptId: d.interruptId } : {}),
      ...(d.kind !== undefined ? { kind: d.kind as InterruptKind } : {}),
      ...(d.outputs !== undefined ? { outputs: d.outputs } : {}),
      ...(d.error !== undefined ? { error: d.error } : {}),
    };
    const decided = await refusingDomainErrors(() =>
      decideRun(
        { type: 'ChildRunChanged', runId: d.runId, change, context: commandContext(command, this.clock) },
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
        applied: decided.value.events.length > 0,
        status: publicStatus(next),
        lastSequence: lastSequenceOf(next),
      },
    };
  }
}
