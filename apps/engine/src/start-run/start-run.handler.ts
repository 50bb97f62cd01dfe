import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  conversationRefusal,
  type CommandReply,
  type StartRunCommand,
  type StartRunResult,
  isTerminalRunStatus,
} from '@openwop/contracts';
import { decideRun } from '@openwop/engine-domain';
import { commandContext } from '../common/command-context';
import { refusingDomainErrors } from '../common/domain-reply';
import { commitDecision, lastSequenceOf, loadRun, loadRunForStart, publicStatus } from '../common/run.store';
import { CLOCK, type Clock } from '../engine.di-tokens';
import { WorkflowRegistry } from '../workflow-registry';

/**
 * `run.start`: run the workflow (the caller's tenant workflow, else a seeded one) until its first
 * wait or its end, and commit the events with the run's state and the outbox rows in one
 * transaction. A domain rejection writes nothing and is the reply.
 */
@Injectable()
export class StartRunHandler {
  constructor(
    private readonly workflows: WorkflowRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async handle(manager: EntityManager, command: StartRunCommand): Promise<CommandReply<StartRunResult>> {
    const { runId, workflowId } = command.data;
    // The run's state and the tenant's workflow in one statement (ADR 0039).
    const { state, registered } = await loadRunForStart(manager, runId, command.actor.tenant, workflowId);
    const workflow = this.workflows.resolve(registered, workflowId);
    if (!workflow) {
      return {
        ok: false,
        error: {
          code: 'workflow_not_found',
          message: `unknown workflowId ${workflowId}`,
          details: { workflowId },
        },
      };
    }
    // A workflow this host's conversation capabilities cannot run (a seeded fixture, a host restarted with them off).
    const refused = conversationRefusal(workflow);
    if (refused) return { ok: false, error: refused };
    const parent = command.data.parent;
    if (parent && (await parentEnded(manager, parent.runId))) {
      // The parent ended (cancelled) before its child's start arrived: the child is not started.
      return {
        ok: false,
        error: {
          code: 'run_terminal',
          message: `parent run ${parent.runId} already ended`,
          details: { runId, parentRunId: parent.runId },
        },
      };
    }
    const decided = await refusingDomainErrors(() =>
      decideRun(
        {
          type: 'StartRun',
          runId,
          workflow,
          inputs: command.data.inputs ?? {},
          ...(command.data.metadata ? { metadata: command.data.metadata } : {}),
          ...(parent ? { parent: { runId: parent.runId, nodeId: parent.nodeId } } : {}),
          ...(command.data.protocolMajor === 2 ? { protocolMajor: 2 as const } : {}),
          ...(command.data.callbackUrl !== undefined ? { callbackUrl: command.data.callbackUrl } : {}),
          context: commandContext(command, this.clock),
        },
        state,
      ),
    );
    if (!decided.ok) return decided.reply;
    await commitDecision(manager, state, decided.value, command);
    const next = decided.value.state;
    return { ok: true, data: { runId, status: publicStatus(next), lastSequence: lastSequenceOf(next) } };
  }
}

/** Whether the parent run has ended: a child started after that is not started at all. */
async function parentEnded(manager: EntityManager, parentRunId: string): Promise<boolean> {
  const state = await loadRun(manager, parentRunId);
  return isTerminalRunStatus(state.status);
}
