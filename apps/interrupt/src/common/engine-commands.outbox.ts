import {
  Headers,
  Topics,
  type CancelRunAtInterruptCommand,
  type CancelRunEngineCommand,
  type CommandEnvelope,
  type ResumeRunCommand,
} from '@openwop/contracts';
import { resumeDecisionOf, type InterruptState } from '@openwop/interrupt-domain';
import type { OutboxMessage } from '@openwop/platform-db';

/** What caused an engine command: the handled command (or the timer's synthetic cause). */
export interface Cause {
  readonly id: string;
  readonly correlationId: string;
}

/**
 * `run.resume` for a decided interrupt, or nothing while it is pending or after a cancel. Its id is
 * derived from the interrupt (`resume:<interruptId>`), so a re-sent resume dedupes at the engine.
 */
export function resumeMessages(state: InterruptState, cause: Cause): OutboxMessage[] {
  const data = resumeDecisionOf(state);
  if (!data || state.status === 'none') return [];
  const command: ResumeRunCommand = {
    id: `resume:${data.interruptId}`,
    type: 'run.resume',
    occurredAt: data.resolvedAt,
    correlationId: cause.correlationId,
    causationId: cause.id,
    actor: { tenant: state.interrupt.tenant, principal: data.resolvedBy },
    data,
  };
  return [toEngine(data.runId, command)];
}

/** `run.cancel` forwarded to the engine once the run's pending interrupts are cancelled. */
export function forwardedCancel(command: CancelRunAtInterruptCommand, now: string): OutboxMessage {
  const { runId, reason, parentRunId } = command.data;
  const forward: CancelRunEngineCommand = {
    id: `cancel:${command.id}`,
    type: 'run.cancel',
    occurredAt: now,
    correlationId: command.correlationId,
    causationId: command.id,
    actor: command.actor,
    data: {
      runId,
      ...(reason !== undefined ? { reason } : {}),
      ...(parentRunId !== undefined ? { parentRunId } : {}),
    },
  };
  return toEngine(runId, forward);
}

/** An engine command in the outbox, keyed by its run (so a run's commands reach the engine in order). */
export function toEngine(runId: string, command: CommandEnvelope): OutboxMessage {
  return {
    topic: Topics.engineCommands,
    key: runId,
    value: command,
    headers: {
      [Headers.messageId]: command.id,
      [Headers.messageType]: command.type,
      [Headers.correlationId]: command.correlationId,
    },
  };
}
