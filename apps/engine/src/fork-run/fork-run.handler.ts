import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CommandReply, ForkRunCommand, ForkRunResult } from '@openwop/contracts';
import { decideFork, type RunState } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRunForUpdate, publicStatus } from '../common/run.store';

/**
 * `run.fork`: start a fork of a source run (`replay.md`). The source's pinned workflow and its owner
 * come from the engine's own record of it (a source of another tenant reads as absent); its events,
 * already split by the gateway, give the fixed history, the recorded resolutions and, in `replay`
 * mode, what to compare against. The fork's first stretch is committed like a started run's.
 */
@Injectable()
export class ForkRunHandler {
  async handle(manager: EntityManager, command: ForkRunCommand): Promise<CommandReply<ForkRunResult>> {
    const d = command.data;
    const source = await loadSource(manager, d.sourceRunId);
    if (source.status === 'none' || source.tenant !== command.actor.tenant) {
      return {
        ok: false,
        error: {
          code: 'not_found',
          message: `run ${d.sourceRunId} does not exist`,
          details: { runId: d.sourceRunId },
        },
      };
    }
    if (source.workflowId !== d.workflowId) {
      return {
        ok: false,
        error: {
          code: 'validation_error',
          message: `run ${d.sourceRunId} runs workflow ${source.workflowId}, not ${d.workflowId}`,
          details: { sourceRunId: d.sourceRunId, workflowId: d.workflowId },
        },
      };
    }
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
          inputs: d.inputs ?? {},
          ...(d.metadata ? { metadata: d.metadata } : {}),
          history: d.history,
          resolutions: d.resolutions,
          expected: d.expected,
          ...(d.conversations ? { conversations: d.conversations } : {}),
          // replay.md §Fork ownership: the fork belongs to the source's owner, not to whoever forked it.
          context: { ...commandContext(command), tenant: source.tenant, principal: source.principal },
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

/** The source run's engine state, read without a lock: a fork only uses what the run pinned at start. */
async function loadSource(manager: EntityManager, runId: string): Promise<RunState> {
  const rows = await manager.query<{ state: RunState }[]>('SELECT state FROM engine_runs WHERE run_id = $1', [
    runId,
  ]);
  return rows[0]?.state ?? { status: 'none' };
}
