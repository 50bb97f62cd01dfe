import {
  assertCommand,
  ENGINE_COMMAND_DATA,
  INTERRUPT_COMMAND_DATA,
  Topics,
  type CancelRunAtInterruptCommand,
  type ChildRunChangedCommand,
  type EngineCommand,
  isTerminalRunStatus,
  type StartRunCommand,
} from '@openwop/contracts';
import { publicRunStatus, type RunDecision, type RunRecord, type RunState } from '@openwop/engine-domain';
import type { OutboxMessage } from '@openwop/platform-db';
import { decidedAt } from '../common/command-context';

/** Why a child run is cancelled when its parent is (`run.cancelled.reason`, interrupt-profiles.md). */
export const PARENT_CANCELLED = 'parent-cancelled';

/**
 * The commands a decision owes to other runs of the parent/child tree (ADR 0025), put in the outbox
 * with the decision so they survive any crash and are sent once:
 * - a node started a child: the child's `run.start` (engine topic, keyed by the child), of the
 *   parent's protocol major;
 * - the run was cancelled while it waited on a child: the child's `run.cancel` with
 *   `reason: parent-cancelled` and `parentRunId` (interrupt topic, so the child's interrupts are
 *   invalidated first, like any cancel);
 * - this run is a child whose public status changed: `run.child` to its parent (engine topic,
 *   keyed by the parent), so the parent shows the child's wait and goes on when it ends.
 * Ids derive from the runs and the sequence, so a re-decided command dedupes downstream.
 */
export function childRunMessages(
  prior: RunState,
  decision: RunDecision,
  cause: EngineCommand,
): OutboxMessage[] {
  const run = decision.state as RunRecord;
  const base = {
    occurredAt: decidedAt(decision),
    correlationId: cause.correlationId,
    causationId: cause.id,
    actor: { tenant: run.tenant, principal: run.principal },
  };
  const messages: OutboxMessage[] = [];
  if (decision.startChild) {
    const c = decision.startChild;
    const start: StartRunCommand = {
      ...base,
      id: `child-start:${c.runId}`,
      type: 'run.start',
      data: {
        runId: c.runId,
        workflowId: c.workflowId,
        inputs: c.inputs,
        parent: { runId: c.parent.runId, nodeId: c.parent.nodeId },
        // A child of a major-2 run (a fork of one included) is a major-2 run (ADR 0041).
        ...(run.protocolMajor === 2 ? { protocolMajor: 2 as const } : {}),
      },
    };
    assertCommand(start, ENGINE_COMMAND_DATA);
    messages.push({ topic: Topics.engineCommands, key: c.runId, value: start });
  }
  if (decision.cancelChild) {
    const { runId, parentRunId } = decision.cancelChild;
    const cancel: CancelRunAtInterruptCommand = {
      ...base,
      id: `child-cancel:${runId}`,
      type: 'run.cancel',
      data: { runId, reason: PARENT_CANCELLED, parentRunId },
    };
    assertCommand(cancel, INTERRUPT_COMMAND_DATA);
    messages.push({ topic: Topics.interruptCommands, key: runId, value: cancel });
  }
  const before = prior.status === 'none' ? undefined : publicRunStatus(prior);
  const after = publicRunStatus(run);
  // A child's own start needs no word to its parent (the parent already waits on it as running).
  if (run.parent && after !== before && !(before === undefined && after === 'running')) {
    const ended = isTerminalRunStatus(run.status);
    const last = decision.events[decision.events.length - 1];
    const payload = (last?.payload ?? {}) as {
      outputs?: Record<string, unknown>;
      error?: ChildRunChangedCommand['data']['error'];
    };
    const changed: ChildRunChangedCommand = {
      ...base,
      id: `child-status:${run.runId}:${run.lastSequence}`,
      type: 'run.child',
      data: {
        runId: run.parent.runId,
        childRunId: run.runId,
        status: after,
        ...(run.pending && !ended ? { interruptId: run.pending.interruptId, kind: run.pending.kind } : {}),
        ...(ended && run.status === 'completed' && payload.outputs ? { outputs: payload.outputs } : {}),
        ...(ended && run.status === 'failed' && payload.error ? { error: payload.error } : {}),
      },
    };
    assertCommand(changed, ENGINE_COMMAND_DATA);
    messages.push({ topic: Topics.engineCommands, key: run.parent.runId, value: changed });
  }
  return messages;
}
