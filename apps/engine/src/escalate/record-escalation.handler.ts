import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, RecordEscalationCommand } from '@openwop/contracts';
import { recordOnRun, type RecordedOnRun } from '../common/record-on-run';
import { CLOCK, type Clock } from '../engine.di-tokens';

export type RecordEscalationResult = RecordedOnRun;

/**
 * `run.escalate` from the interrupt service's outbox (ADR 0034): append the decided escalation step
 * to the run log, the run log's single writer being the engine, so the notifier can deliver it.
 * Once per step: the command id derives from (interrupt, step) and the seam dedupes it.
 */
@Injectable()
export class RecordEscalationHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  handle(
    manager: EntityManager,
    command: RecordEscalationCommand,
  ): Promise<CommandReply<RecordEscalationResult>> {
    return recordOnRun(manager, command, this.clock, (base) => ({
      ...base,
      type: 'RecordEscalation',
      eventType: command.data.type,
    }));
  }
}
