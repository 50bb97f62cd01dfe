import { IsObject, IsOptional, IsString, Length, Matches } from 'class-validator';
import type { CommandEnvelope } from './envelope';

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

/** Every command the engine consumes. */
export type EngineCommand = StartRunCommand;

/** Maps each engine command type to its data class, for validation at the consumer edge. */
export const ENGINE_COMMAND_DATA = {
  'run.start': StartRunData,
} as const;
