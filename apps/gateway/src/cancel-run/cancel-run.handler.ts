import { Inject, Injectable } from '@nestjs/common';
import { Topics, type CancelRunAtInterruptCommand, isTerminalRunStatus } from '@openwop/contracts';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from '../commands/command.sender';
import { waitForProjectedRun } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';

/** How long a cancel waits for the run's `run.cancelled` to be projected before answering `cancelling`. */
const CANCEL_SETTLE_MS = 5_000;

/** The answer to one cancel: the run and its status after the cancel. */
export interface CancelOutcome {
  readonly runId: string;
  /** `cancelled` once projected, `cancelling` before; a run that had already ended keeps its status. */
  readonly status: string;
}

/**
 * Cancels one run, idempotently (rest-endpoints.md; the interruptRace scenario): a run that already
 * ended answers its terminal status and nothing is sent; otherwise `run.cancel` goes through the
 * interrupt service, the per-run gate of external input, so a cancel and a resolve of the same run
 * are decided in one order (pending interrupts and their tokens are cancelled first, a later resolve
 * gets `409 interrupt_already_resolved`), and the engine ends the run once; a cancel that loses the race to
 * the run's own end is refused there and answers the status the run ended with.
 * Used by the single and the bulk cancel routes alike.
 */
@Injectable()
export class CancelRunHandler {
  constructor(
    private readonly commands: CommandSender,
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  /**
   * @throws {@link ApiError} `not_found` when the run does not exist or belongs to another tenant;
   * `unavailable` when the interrupt service did not answer in time.
   */
  async cancel(runId: string, reason: string | undefined, caller: Caller): Promise<CancelOutcome> {
    const run = await this.runs.requireVisible(runId, caller.tenant);
    if (isTerminalRunStatus(run.status)) return { runId, status: run.status };
    const command: CancelRunAtInterruptCommand = this.commands.envelope(
      'run.cancel',
      runId,
      { runId, ...(reason ? { reason } : {}) },
      caller,
    );
    await this.commands.send(Topics.interruptCommands, runId, command);
    const found = await waitForProjectedRun(
      { feed: this.feed, runId, timeoutMs: CANCEL_SETTLE_MS, fallbackMs: 100 },
      () => this.runs.findVisible(runId, caller.tenant),
      (r) => isTerminalRunStatus(r.status),
    );
    return { runId, status: found?.ready ? found.row.status : 'cancelling' };
  }
}
