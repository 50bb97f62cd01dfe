export {
  decideRun,
  runOptions,
  RunAlreadyExists,
  RunNotFound,
  RunTerminal,
  RunAlreadyPaused,
  RunPauseDraining,
  RunNotPaused,
  publicRunStatus,
  DEFAULT_ESCALATION_THRESHOLD,
  DEFAULT_RECURSION_LIMIT,
  type CommandContext,
  type CancelRun,
  type RecordConversation,
  type RecordEscalation,
  type AppendOutput,
  type ResumeRun,
  type RunCommand,
  type FailRun,
  type RunDecision,
  type StartRun,
  type FireTimer,
  type PauseRun,
  type UnpauseRun,
  type ChildRunChanged,
  type ChildStart,
} from './run.decider';
export {
  evolveRun,
  initialRunState,
  newRunRecord,
  type NodeOutcome,
  type PendingInterrupt,
  type PendingTimer,
  type RunPause,
  type PauseRequest,
  type Resolution,
  type RunRecord,
  type RunState,
  type RunStatus,
} from './run.state';
export { runEventId } from './event-writer';
export { pauseRequestOf } from './pause-drain';
export {
  CHILD_ENDED,
  CHILD_STARTED,
  childRunIdFor,
  type ChildRunChange,
  type ChildRunOutcome,
  type ParentLink,
  type PendingChild,
} from './child-runs';
export { setDecisionCheckpoint, type DecisionCheckpoint } from './draft';
export { createNodeRegistry, type NodeRegistry, type RunError } from './executor';
export { type OpenInterruptRequest } from './interrupt-events';
export {
  defineNode,
  NodeError,
  InterruptTimeoutError,
  InterruptCancelledError,
  NODE_EMITTABLE_EVENTS,
  type InterruptRequest,
  type ConversationOpening,
  type SuspendRequest,
  type NodeContext,
  type NodeModule,
  type NodeOutputs,
  type NodeEmittableEvent,
  type RunConfigurable,
} from './node';
export {
  BUILTIN_NODES,
  BUILTIN_NODE_REGISTRY,
  connectUrlOf,
  setCredentialConnectBase,
} from './builtin-nodes';
export { decideFork, type ForkRun, type ForkedFrom } from './replay';
export {
  assertForkMayReuse,
  forkSourceOf,
  FORK_REUSE_SCOPE,
  ForkReusesResolutions,
  overlaidMetadata,
  SequenceNotFound,
  ForkSourceNotFound,
  type ForkSource,
  type ReusedInterrupt,
  type ForkStart,
} from './fork-source';
export {
  AGENT_NODE_TYPES,
  CLOSE_TOOL,
  MOCK_SPEAKER_ID,
  MOCK_TURN_TEXT,
  isAutoResumedGate,
  agentsOf,
  agentPrompt,
  followUpsOf,
  type AgentSpec,
  type AgentPrompt,
  type FollowUp,
  type PromptMessage,
} from './agent-driver';
export { DEFAULT_WINDOW, contentText, olderSummary, type ConversationView } from './conversation-view';
export type { ConversationClosure } from './builtin-nodes/agent-conversation.nodes';
export { RUN_STATE_SHAPE, runStateDocument, runStateFromDocument } from './run-state.version';
