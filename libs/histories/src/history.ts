import { COMMAND_ENVELOPE_VERSION, RUN_EVENT_SCHEMA_VERSION, type RunEventDoc } from '@openwop/contracts';
import {
  CONVERSATION_STATE_SHAPE,
  type ConversationCommand,
  type ConversationEvent,
  type ConversationTurn,
} from '@openwop/conversation-domain';
import { RUN_STATE_SHAPE, type ForkRun, type RunCommand, type RunDecision } from '@openwop/engine-domain';
import { INTERRUPT_STATE_SHAPE, type InterruptCommand, type InterruptEvent } from '@openwop/interrupt-domain';

/** The format of a history file; a change to it that old files cannot follow bumps it. */
export const HISTORY_FORMAT = 1;

/** The versions of the persisted shapes a history was recorded with (what the release wrote). */
export interface RecordedVersions {
  readonly runState: number;
  readonly interruptState: number;
  readonly conversationState: number;
  readonly commandEnvelope: number;
  readonly runEvent: number;
}

/** The versions this build writes. */
export function currentVersions(): RecordedVersions {
  return {
    runState: RUN_STATE_SHAPE.current,
    interruptState: INTERRUPT_STATE_SHAPE.current,
    conversationState: CONVERSATION_STATE_SHAPE.current,
    commandEnvelope: COMMAND_ENVELOPE_VERSION,
    runEvent: RUN_EVENT_SCHEMA_VERSION,
  };
}

/** What a run decision gave the host besides the state (the state is recorded as its stored document). */
export type RecordedRunDecision = Omit<RunDecision, 'state'>;

/** One command to the engine's run decider: the command in, the decision out, the stored state after. */
export interface RunStep {
  readonly stream: 'run';
  readonly id: string;
  readonly command: RunCommand | ForkRun;
  readonly decision: RecordedRunDecision;
  /** `engine_runs.state` after the step, as stored (with its `schemaVersion`). */
  readonly state: object | null;
}

/** One command to the interrupt decider. */
export interface InterruptStep {
  readonly stream: 'interrupt';
  readonly id: string;
  readonly command: InterruptCommand;
  readonly events: readonly InterruptEvent[];
  /** `interrupts.state` after the step, as stored (null: nothing held). */
  readonly state: object | null;
}

/**
 * One step of a conversation: a command to the conversation decider, or (`opened`) the engine's
 * `conversation.opened` that the interrupt service holds the conversation from.
 */
export interface ConversationStep {
  readonly stream: 'conversation';
  readonly id: string;
  readonly command?: ConversationCommand;
  readonly opened?: Record<string, unknown>;
  readonly events: readonly ConversationEvent[];
  /** The turn rows written by the step (`interrupt_conversation_turns`). */
  readonly turns: readonly ConversationTurn[];
  /** `interrupt_conversations.state` after the step, as stored (null: nothing held). */
  readonly state: object | null;
}

export type HistoryStep = RunStep | InterruptStep | ConversationStep;

/** A recorded history: what a release decided for one scenario, step by step. */
export interface RecordedHistory {
  readonly format: number;
  readonly scenario: string;
  readonly description: string;
  readonly versions: RecordedVersions;
  readonly steps: readonly HistoryStep[];
}

/** The run events of a history, in the order they were decided. */
export function runEventsOf(history: Pick<RecordedHistory, 'steps'>, runId?: string): RunEventDoc[] {
  return history.steps.flatMap((s) =>
    s.stream === 'run' && (runId === undefined || s.id === runId) ? s.decision.events : [],
  );
}
