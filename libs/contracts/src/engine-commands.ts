import { IsArray, IsIn, IsObject, IsOptional, IsString, Length, Matches } from 'class-validator';
import type { CommandEnvelope } from './envelope';
import { ForkRunData, type ForkRunCommand } from './fork-commands';

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

/** `run.cancel` on the engine topic: forwarded by the interrupt service after it cancelled the interrupts. */
export class CancelRunEngineData {
  @IsString() @Length(1, 128) runId!: string;
  @IsOptional() @IsString() reason?: string;
}

/** `workflow.register`: add or replace a workflow definition (tenant-scoped). */
export class RegisterWorkflowData {
  @IsObject() definition!: Record<string, unknown>;
}

/** `workflow.get`: read a workflow definition. */
export class GetWorkflowData {
  @IsString() @Length(1, 200) workflowId!: string;
}

export type ResumeRunCommand = CommandEnvelope<'run.resume', ResumeRunData>;
export type CancelRunEngineCommand = CommandEnvelope<'run.cancel', CancelRunEngineData>;
export type RegisterWorkflowCommand = CommandEnvelope<'workflow.register', RegisterWorkflowData>;
export type GetWorkflowCommand = CommandEnvelope<'workflow.get', GetWorkflowData>;

/** Every command the engine consumes. */
export type EngineCommand =
  | StartRunCommand
  | ResumeRunCommand
  | CancelRunEngineCommand
  | RegisterWorkflowCommand
  | GetWorkflowCommand
  | ForkRunCommand;

/** Maps each engine command type to its data class, for validation at the consumer edge. */
export const ENGINE_COMMAND_DATA = {
  'run.start': StartRunData,
  'run.resume': ResumeRunData,
  'run.cancel': CancelRunEngineData,
  'workflow.register': RegisterWorkflowData,
  'workflow.get': GetWorkflowData,
  'run.fork': ForkRunData,
} as const;
