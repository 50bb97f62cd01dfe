import {
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Min,
} from 'class-validator';
import type { CommandEnvelope } from './envelope';
import { ForkRunData, type ForkRunCommand } from './fork-commands';
import {
  FireTimerData,
  PauseRunData,
  UnpauseRunData,
  type FireTimerCommand,
  type PauseRunCommand,
  type UnpauseRunCommand,
} from './run-timers';

/** Data of `run.start`: create a run of a registered workflow. */
export class StartRunData {
  @IsString()
  @Length(1, 128)
  @Matches(/^[A-Za-z0-9._:-]+$/)
  runId!: string;

  @IsString()
  @Length(1, 200)
  workflowId!: string;

  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  /**
   * Set when a parent run's node starts this run (`core.subWorkflow`): `{runId, nodeId}` of the
   * parent that waits on it. Internal: the engine sends it to itself; the gateway never does.
   */
  @IsOptional()
  @IsObject()
  parent?: { runId: string; nodeId: string };

  /**
   * The protocol major the run is created under (ADR 0041): `2` for a run created on the
   * unversioned (v2) path space; absent for major 1. Stamped on `run.started`, it is the run's for life.
   */
  @IsOptional()
  @IsIn([2])
  protocolMajor?: 2;

  /**
   * `createRun.callbackUrl` (interrupt.md §Callback delivery), already through the gateway's egress
   * guard. Stamped on `run.started`, where the notifier reads it to deliver notice of the run's
   * interrupts.
   */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  callbackUrl?: string;
}

export type StartRunCommand = CommandEnvelope<'run.start', StartRunData>;

/** The reply to `run.start`. */
export interface StartRunResult {
  readonly runId: string;
  readonly status: string;
  /** Sequence of the last event the command wrote; readers wait for it to be projected. */
  readonly lastSequence: number;
}

/** `run.resume`: the interrupt service decided an interrupt; the engine resumes the node. */
export class ResumeRunData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
  @IsString() @Length(1, 256) interruptId!: string;
  @IsString() @Length(1, 512) key!: string;
  /** `resolved` carries `resumeValue`; `timeout` makes `ctx.interrupt` throw InterruptTimeoutError. */
  @IsIn(['resolved', 'timeout']) outcome!: 'resolved' | 'timeout';
  @IsOptional() resumeValue?: unknown;
  @IsString() resolvedBy!: string;
  @IsString() resolvedAt!: string;
  /** Side-channel records to append to the run log before resuming (approval votes, asks). */
  @IsOptional() @IsArray() notes?: unknown[];
}

/**
 * `run.child`: the child run `childRunId` that the run `runId` waits on changed status (`running`, a
 * `waiting-*` status with its interrupt, or its terminal status with its outputs or error). The
 * engine sends it to itself (outbox) from the child's decision, keyed by the parent run.
 */
export class ChildRunChangedData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) childRunId!: string;
  @IsString() @Length(1, 64) status!: string;
  @IsOptional() @IsString() @Length(1, 256) interruptId?: string;
  @IsOptional() @IsString() @Length(1, 64) kind?: string;
  @IsOptional() @IsObject() outputs?: Record<string, unknown>;
  @IsOptional() @IsObject() error?: {
    code: string;
    message: string;
    retryable: boolean;
    details?: Record<string, unknown>;
  };
}

/** `run.cancel` on the engine topic: forwarded by the interrupt service after it cancelled the interrupts. */
export class CancelRunEngineData {
  @IsString() @Length(1, 128) runId!: string;
  @IsOptional() @IsString() reason?: string;
  /** The parent run whose cancel cascades to this one (`run.cancelled.parentRunId`); absent for a direct cancel. */
  @IsOptional() @IsString() @Length(1, 128) parentRunId?: string;
}

/**
 * `run.fail`: a command that carried the run forward (an `interrupt.open` for it, its `run.resume`,
 * its `run.cancel`) could not be applied and was set aside (dead-lettered). The engine ends the run
 * `failed` with `error.code` `command_not_applied` and `reason` in the message, so nothing waits on
 * it forever. Internal: services send it from their dead-letter path; the gateway never does. A run
 * already terminal is left as it is.
 */
export class FailRunData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 2000) reason!: string;
  @IsOptional() @IsString() @Length(1, 256) failedCommandId?: string;
  @IsOptional() @IsString() @Length(1, 128) failedCommandType?: string;
}

/**
 * The `run.fail` for a command of run `runId` that was set aside: its id derives from the failed
 * command's, so a second dead letter of the same command fails the run once.
 */
export function failRunCommandFor(
  failed: { readonly id: string; readonly type: string; readonly actor: { readonly tenant: string } },
  runId: string,
  reason: string,
  principal: string,
): CommandEnvelope<'run.fail', FailRunData> {
  return {
    id: `fail:${failed.id}`,
    type: 'run.fail',
    occurredAt: new Date().toISOString(),
    correlationId: runId,
    causationId: failed.id,
    actor: { tenant: failed.actor.tenant, principal },
    data: {
      runId,
      reason: reason.slice(0, 2000) || 'unknown',
      failedCommandId: failed.id.slice(0, 256),
      failedCommandType: failed.type.slice(0, 128),
    },
  };
}

/** `workflow.register`: add or replace a workflow definition (tenant-scoped). */
export class RegisterWorkflowData {
  @IsObject() definition!: Record<string, unknown>;
}

/** `workflow.get`: read a workflow definition. */
export class GetWorkflowData {
  @IsString() @Length(1, 200) workflowId!: string;
}

/**
 * `run.converse`: the interrupt service decided a conversation event (RFC 0005 turn, close or
 * timeout) on the pending conversation interrupt `interruptId`; the engine appends it to the run log.
 * `type` is `conversation.exchanged` or `conversation.closed` (`payload` is the wire payload), or
 * `conversation.silence`: nobody spoke for the conversation's `maxSilenceMs` (an audit record).
 */
export class RecordConversationData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
  @IsString() @Length(1, 256) interruptId!: string;
  @IsIn(['conversation.exchanged', 'conversation.closed', 'conversation.silence'])
  type!: 'conversation.exchanged' | 'conversation.closed' | 'conversation.silence';
  @IsObject() payload!: Record<string, unknown>;
  @IsOptional() @IsString() reason?: string;
}

/**
 * `agent.turn`: an agent of a conversation node owes a reply after turn `afterTurnIndex`. The engine
 * sends it to itself (outbox) when it records the turn that calls for the reply, and handles it by
 * streaming the provider's answer (`output.chunk`) and submitting the agent's turn to the interrupt
 * service. Its id is derived from the conversation and turn, so a redelivery dedupes.
 */
export class AgentTurnData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
  @IsString() @Length(1, 256) interruptId!: string;
  @IsString() @Length(1, 512) conversationId!: string;
  @IsString() @Length(1, 256) speakerId!: string;
  @IsInt() @Min(0) afterTurnIndex!: number;
}

/**
 * `run.escalate`: the interrupt service decided something about who works on the pending interrupt
 * `interruptId` — an escalation step (ADR 0034: `interrupt.reminded`, `interrupt.reassigned`) or a
 * claim change (ADR 0035: `interrupt.claimed`, `interrupt.released`); the engine appends `type` with
 * `payload` to the run log while the run still waits on that interrupt (so SSE streams and the
 * notifier see it), and nothing otherwise.
 */
/** The run events the interrupt service has the engine record on a waiting interrupt (`run.escalate`). */
export const INTERRUPT_STEP_EVENT_TYPES = [
  'interrupt.reminded',
  'interrupt.reassigned',
  'interrupt.claimed',
  'interrupt.released',
] as const;
export type InterruptStepEventType = (typeof INTERRUPT_STEP_EVENT_TYPES)[number];

export class RecordEscalationData {
  @IsString() @Length(1, 128) runId!: string;
  @IsString() @Length(1, 128) nodeId!: string;
  @IsString() @Length(1, 256) interruptId!: string;
  @IsIn(INTERRUPT_STEP_EVENT_TYPES)
  type!: InterruptStepEventType;
  @IsObject() payload!: Record<string, unknown>;
}

export type ResumeRunCommand = CommandEnvelope<'run.resume', ResumeRunData>;
export type RecordEscalationCommand = CommandEnvelope<'run.escalate', RecordEscalationData>;
export type RecordConversationCommand = CommandEnvelope<'run.converse', RecordConversationData>;
export type AgentTurnCommand = CommandEnvelope<'agent.turn', AgentTurnData>;
export type CancelRunEngineCommand = CommandEnvelope<'run.cancel', CancelRunEngineData>;
export type FailRunCommand = CommandEnvelope<'run.fail', FailRunData>;
export type ChildRunChangedCommand = CommandEnvelope<'run.child', ChildRunChangedData>;
export type RegisterWorkflowCommand = CommandEnvelope<'workflow.register', RegisterWorkflowData>;
export type GetWorkflowCommand = CommandEnvelope<'workflow.get', GetWorkflowData>;

/** Every command the engine consumes. */
export type EngineCommand =
  | StartRunCommand
  | ResumeRunCommand
  | RecordConversationCommand
  | RecordEscalationCommand
  | AgentTurnCommand
  | CancelRunEngineCommand
  | FailRunCommand
  | RegisterWorkflowCommand
  | GetWorkflowCommand
  | ForkRunCommand
  | FireTimerCommand
  | PauseRunCommand
  | UnpauseRunCommand
  | ChildRunChangedCommand;

/** Maps each engine command type to its data class, for validation at the consumer edge. */
export const ENGINE_COMMAND_DATA = {
  'run.start': StartRunData,
  'run.resume': ResumeRunData,
  'run.converse': RecordConversationData,
  'run.escalate': RecordEscalationData,
  'agent.turn': AgentTurnData,
  'run.cancel': CancelRunEngineData,
  'run.fail': FailRunData,
  'workflow.register': RegisterWorkflowData,
  'workflow.get': GetWorkflowData,
  'run.fork': ForkRunData,
  'run.timer': FireTimerData,
  'run.pause': PauseRunData,
  'run.unpause': UnpauseRunData,
  'run.child': ChildRunChangedData,
} as const;
