import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, ForkRunCommand, ForkRunData, ForkRunResult } from '@openwop/contracts';
import {
  assertForkMayReuse,
  decideFork,
  forkSourceOf,
  overlaidMetadata,
  type ForkRun,
  type ReusedInterrupt,
  type RunRecord,
} from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import {
  commitDecision,
  lastSequenceOf,
  loadRun,
  loadRunForUpdate,
  loadRunLog,
  publicStatus,
} from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';

type Refused = { ok: false; reply: CommandReply<never> };

/**
 * `run.fork`: start a fork of a source run (`replay.md`, ADR 0008). Everything comes from the
 * engine's own record of the source: its owner (a source of another tenant reads as absent), its
 * pinned workflow and its event log, split by `forkSourceOf` into the fixed history, the recorded
 * resolutions and, in `replay` mode, what to compare against. A fork that reuses a recorded interrupt
 * resolution is refused `forbidden` unless its caller holds `approvals:respond` (`callerMayResolve`,
 * ADR 0008): decided here, on the engine's own log, so a resolution the projection has not shown yet
 * counts too. The fork's first stretch is committed
 * like a started run's. A command of the previous release's shape (the log inside it) is decided from
 * its fields, as before, for one release (see {@link ForkRunData}).
 */
@Injectable()
export class ForkRunHandler {
  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  async handle(manager: EntityManager, command: ForkRunCommand): Promise<CommandReply<ForkRunResult>> {
    const d = command.data;
    const source = await loadRun(manager, d.sourceRunId);
    if (source.status === 'none' || source.tenant !== command.actor.tenant) {
      return {
        ok: false,
        error: { code: 'not_found', message: `Run ${d.sourceRunId} not found.` },
      };
    }
    const split =
      d.history !== undefined ? previousReleaseSplit(d, source) : await this.split(manager, d, source);
    if (!split.ok) return split.reply;
    const { reusedInterrupts, ...forkParts } = split.value;
    const allowed = await refusingDomainErrors(() =>
      Promise.resolve(assertForkMayReuse(d.sourceRunId, reusedInterrupts, d.callerMayResolve === true)),
    );
    if (!allowed.ok) return allowed.reply;
    const state = await loadRunForUpdate(manager, d.runId);
    const decided = await refusingDomainErrors(() =>
      decideFork(
        {
          type: 'ForkRun',
          runId: d.runId,
          sourceRunId: d.sourceRunId,
          mode: d.mode,
          fromSeq: d.fromSeq,
          workflow: source.workflow,
          ...forkParts,
          // replay.md §Fork ownership: the fork belongs to the source's owner, not to whoever forked it.
          context: {
            ...commandContext(command, this.clock),
            tenant: source.tenant,
            principal: source.principal,
          },
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

  /** The fork's start from the source's log as the engine recorded it (`422 sequence_not_found` past it). */
  private async split(
    manager: EntityManager,
    d: ForkRunData,
    source: RunRecord,
  ): Promise<{ ok: true; value: ForkSplit } | Refused> {
    const log = await loadRunLog(manager, d.sourceRunId, source.lastSequence);
    const split = await refusingDomainErrors(() => Promise.resolve(forkSourceOf(log, d.fromSeq, d.mode)));
    if (!split.ok) return split;
    const { started, history, resolutions, reusedInterrupts, expected, conversations } = split.value;
    const metadata = overlaidMetadata(started.metadata, d.overlay);
    return {
      ok: true,
      value: {
        inputs: started.inputs ?? {},
        ...(metadata ? { metadata } : {}),
        ...(started.protocolMajor === 2 ? { protocolMajor: 2 as const } : {}),
        history,
        resolutions,
        reusedInterrupts,
        expected,
        conversations,
      },
    };
  }
}

/** What a fork takes beyond its ids, workflow and context, and the recorded interrupt answers it reuses. */
type ForkSplit = Pick<
  ForkRun,
  'inputs' | 'metadata' | 'protocolMajor' | 'history' | 'resolutions' | 'expected' | 'conversations'
> & {
  readonly reusedInterrupts: readonly ReusedInterrupt[];
};

/** A `run.fork` of the previous release's shape: the gateway sent the source's log, split. */
function previousReleaseSplit(d: ForkRunData, source: RunRecord): { ok: true; value: ForkSplit } | Refused {
  if (d.workflowId !== undefined && source.workflowId !== d.workflowId) {
    return {
      ok: false,
      reply: {
        ok: false,
        error: {
          code: 'validation_error',
          message: `run ${d.sourceRunId} runs workflow ${source.workflowId}, not ${d.workflowId}`,
          details: { sourceRunId: d.sourceRunId, workflowId: d.workflowId },
        },
      },
    };
  }
  return {
    ok: true,
    value: {
      inputs: d.inputs ?? {},
      ...(d.metadata ? { metadata: d.metadata } : {}),
      history: d.history ?? [],
      resolutions: d.resolutions ?? {},
      // The old shape does not tell an interrupt's answer from a fired timer's: every one counts.
      reusedInterrupts: Object.keys(d.resolutions ?? {}).map((key) => ({
        key,
        sequence:
          d.history?.find(
            (e) => e.type === 'interrupt.resolved' && (e.payload as { key?: unknown } | null)?.key === key,
          )?.sequence ?? d.fromSeq,
      })),
      expected: d.expected ?? [],
      ...(d.conversations ? { conversations: d.conversations } : {}),
    },
  };
}
