import { Inject, Injectable } from '@nestjs/common';
import {
  Topics,
  type ProjectedRunMark,
  type ResolveInterruptCommand,
  type ResolveInterruptData,
  type ResolveInterruptResult,
} from '@openwop/contracts';
import { annotateActiveSpan, Attr, interruptCountOf } from '@openwop/observability';
import type { RunEventFeed } from '@openwop/platform-db';
import { RUN_EVENT_FEED } from '@openwop/platform-nest';
import type { Caller } from '../auth/api-key.registry';
import { CommandSender } from '../commands/command.sender';
import { DomainError } from '@openwop/kernel';
import { ApiError } from '../common/api.error';
import { assertResumeValueWithinLimits } from '../common/resume-value.limits';
import { noticeOf, RunNotices, waitForProjectedRun } from '../runs/run-change.waiter';
import { RunReadRepository } from '../runs/run-read.repository';

const READ_YOUR_WRITES_MS = 5_000;

/** How a bulk item resolves: a command id derived from its bulk request, no read-your-writes wait. */
export interface ResolveOptions {
  /** The envelope id (the interrupt service dedupes on it): a retried bulk item gets its first verdict. */
  readonly commandId?: string;
  /** `false`: answer as soon as the interrupt service decided, without waiting for the projection. */
  readonly awaitProjection?: boolean;
}

/**
 * Resolves a run-scoped interrupt: the interrupt service decides (first resolve wins, per-kind
 * validation, quorum); once it resolved, we wait until the run snapshot no longer shows that
 * interrupt pending, so a read right after the answer sees the run moving on.
 *
 * The run is not read before the command (ADR 0039, nothing read that the decision reads): the
 * interrupt service refuses another tenant's interrupt as `interrupt_not_found`, as it refuses a
 * missing one, before it looks at the answer. Only that refusal reads the run, to answer a run the
 * caller cannot see with the same `404` as every other route.
 */
@Injectable()
export class ResolveInterruptHandler {
  constructor(
    private readonly commands: CommandSender,
    private readonly runs: RunReadRepository,
    @Inject(RUN_EVENT_FEED) private readonly feed: RunEventFeed,
  ) {}

  /** The node a run-scoped resolve without `nodeId` addresses: the one the run waits on. */
  async waitingNodeOf(runId: string, caller: Caller): Promise<string> {
    const row = await this.runs.requireVisible(runId, caller.tenant);
    const pending = (row.snapshot as { interrupt?: { nodeId?: string } } | undefined)?.interrupt;
    if (!pending?.nodeId)
      throw new ApiError('interrupt_not_found', `run ${runId} is not waiting on an interrupt`);
    return pending.nodeId;
  }

  async handle(
    runId: string,
    nodeId: string,
    resumeValue: unknown,
    via: ResolveInterruptData['via'],
    caller: Caller,
    options: ResolveOptions = {},
  ): Promise<ResolveInterruptResult> {
    assertResumeValueWithinLimits(resumeValue);
    const envelope: ResolveInterruptCommand = this.commands.envelope(
      'interrupt.resolve',
      runId,
      { runId, nodeId, resumeValue, via },
      caller,
    );
    const command = options.commandId !== undefined ? { ...envelope, id: options.commandId } : envelope;
    // Watching before the command is sent: the projection's notice cannot come before we listen.
    const notices = new RunNotices(this.feed, runId);
    try {
      const { data: result, projected } = await this.commands
        .sendForVerdict<ResolveInterruptResult>(Topics.interruptCommands, runId, command)
        .catch(async (error: unknown) => {
          if (error instanceof DomainError && error.code === 'interrupt_not_found') {
            await this.runs.requireVisible(runId, caller.tenant);
          }
          throw error;
        });
      annotateActiveSpan({
        [Attr.runId]: runId,
        [Attr.nodeId]: nodeId,
        [Attr.interruptId]: result.interruptId,
        [Attr.interruptCount]: interruptCountOf(result.interruptId),
      });
      if (
        result.status === 'resolved' &&
        options.awaitProjection !== false &&
        !(await projectedByDecision(notices, runId, projected))
      ) {
        const waiting = { feed: this.feed, runId, timeoutMs: READ_YOUR_WRITES_MS, fallbackMs: 100, notices };
        await waitForProjectedRun(
          waiting,
          () => this.runs.findVisible(runId, caller.tenant),
          (row) =>
            (row.snapshot as { interrupt?: { interruptId?: string } }).interrupt?.interruptId !==
            result.interruptId,
        );
      }
      return result;
    } finally {
      notices.close();
    }
  }
}

/**
 * Whether the resolve's own transaction projected the run's resume (one process: the engine decided
 * it through and the projection applied it there, ADR 0039) and the feed told of it: then the
 * snapshot no longer shows the interrupt pending, and reading it back would only repeat that.
 */
async function projectedByDecision(
  notices: RunNotices,
  runId: string,
  projected: readonly ProjectedRunMark[],
): Promise<boolean> {
  const mark = projected.find((m) => m.runId === runId);
  if (!mark) return false;
  return noticeOf(notices, mark.lastSequence);
}
