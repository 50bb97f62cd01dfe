export { Topics, ConsumerGroups, Headers, replyTopic, type TopicName } from './topics';
export type { Actor, CommandEnvelope, CommandReply, ReplyError } from './envelope';
export { RUN_EVENT_TYPES, TERMINAL_RUN_EVENT_TYPES, type RunEventDoc, type RunEventType } from './run-event';
export {
  assertRunEvent,
  assertErrorEnvelope,
  SchemaValidationError,
  type SchemaViolation,
} from './schema-validation';
export {
  UNTRUSTED_SCHEMA_LIMITS,
  UnsupportedPatternError,
  UntrustedSchemaError,
  UntrustedSchemaCompiler,
  assertSchemaBounds,
  compileLinearPattern,
  linearRegExp,
  newLinearAjv,
  untrustedSchemaProblem,
} from './linear-schema';
export { assertCommand } from './message-validation';
export {
  StartRunData,
  ResumeRunData,
  CancelRunEngineData,
  FailRunData,
  failRunCommandFor,
  RegisterWorkflowData,
  GetWorkflowData,
  ENGINE_COMMAND_DATA,
  type StartRunCommand,
  type StartRunResult,
  type ResumeRunCommand,
  type RecordConversationCommand,
  type RecordEscalationCommand,
  RecordEscalationData,
  type AgentTurnCommand,
  RecordConversationData,
  AgentTurnData,
  type CancelRunEngineCommand,
  type FailRunCommand,
  type RegisterWorkflowCommand,
  type GetWorkflowCommand,
  type EngineCommand,
  ChildRunChangedData,
  type ChildRunChangedCommand,
} from './engine-commands';
export {
  INTERRUPT_KINDS,
  APPROVAL_ACTIONS,
  waitingStatusFor,
  suspendReasonFor,
  type InterruptKind,
  type ApprovalAction,
  type ApprovalData,
  type ApprovalResume,
  type RefineFeedback,
  type InterruptPayload,
  type InterruptRecord,
} from './interrupt';
export {
  OpenInterruptData,
  ResolveInterruptData,
  CancelRunData,
  ExpireInterruptData,
  ClaimInterruptData,
  ReleaseInterruptData,
  INTERRUPT_COMMAND_DATA,
  type ClaimInterruptCommand,
  type ReleaseInterruptCommand,
  type ClaimInterruptResult,
  type OpenInterruptCommand,
  type ResolveInterruptCommand,
  type CancelRunAtInterruptCommand,
  type ExpireInterruptCommand,
  type InterruptCommand,
  type ResolveInterruptResult,
} from './interrupt-commands';
export {
  SUPPORTED_NODE_TYPES,
  TRIGGER_RULES,
  unsupportedFeatures,
  type TriggerRule,
  type UnsupportedFeature,
  type WorkflowDefinition,
  type WorkflowNode,
  type WorkflowEdge,
} from './workflow';
export { CONFORMANCE_FIXTURES, SEEDED_FIXTURES, isRunnable } from './fixtures';
export {
  validateWorkflowDefinition,
  withDefinitionDefaults,
  definitionSchemaErrors,
  type DefinitionSchemaError,
} from './workflow-validation';
export {
  InspectTokenData,
  ResolveByTokenData,
  TOKEN_COMMAND_DATA,
  TOKEN_BEARER_ACTOR,
  type InspectTokenCommand,
  type ResolveByTokenCommand,
  type TokenCommand,
  type InspectTokenResult,
} from './token-commands';
export {
  FORK_MODES,
  REPLAY_UNCOMPARED_EVENT_TYPES,
  COMPARABLE_RUN_ID,
  ForkRunData,
  rebaseRunId,
  isUncomparedEvent,
  comparableRunEvent,
  comparableDifference,
  canonicalJson,
  type ForkMode,
  type ForkResolution,
  type RunOptionsOverlay,
  type RecordedConversationEvent,
  type ComparableRunEvent,
  type ForkRunCommand,
  type ForkRunResult,
} from './fork-commands';
export { COMMAND_NOT_APPLIED, notAppliedRefusal, refusal, validationRefusal } from './command-reply';
export {
  conversationLimits,
  conversationRefusal,
  CONVERSATION_NODE_TYPES,
  type CapabilityRefusal,
  MAX_CONVERSATION_PARTICIPANTS_ENV,
  DEFAULT_MAX_CONVERSATION_PARTICIPANTS,
  type ConversationLimits,
} from './conversation-limits';
export {
  MAX_REQUEST_BODY_BYTES,
  MAX_JSON_DEPTH,
  MAX_YAML_ALIASES,
  MAX_ID_LENGTH,
  MAX_WORKFLOW_NODES,
  MAX_WORKFLOW_EDGES,
  MAX_NODE_EXECUTIONS,
  MAX_INTERRUPT_TIMEOUT_MS,
  MAX_DELAY_MS,
  MAX_REQUIRED_APPROVALS,
  MAX_TURN_TS_MS,
  MAX_TURN_CONTENT_BYTES,
  MAX_TURN_ID_LENGTH,
  MAX_SEQUENCE,
  MAX_INTERRUPT_AGE_MS,
  MAX_CURSOR_LENGTH,
  MAX_BULK_DECISION_ITEMS,
  advertisedLimits,
  workflowLimitProblems,
  runConfigurableProblems,
  conversationTurnProblems,
  jsonDepthExceeds,
  valueDepthExceeds,
  type LimitProblem,
} from './limits';
export {
  MAX_BUS_MESSAGE_BYTES,
  MessageTooLargeError,
  assertBusMessageSize,
  busMessageBytes,
  groupsWithinBytes,
} from './bus-message-size';
export {
  TIMER_SCHEDULED,
  TIMER_FIRED,
  timerRecordOf,
  FireTimerData,
  fireTimerCommandId,
  PAUSE_DRAIN_POLICIES,
  MAX_PAUSE_REASON_LENGTH,
  PauseRunData,
  UnpauseRunData,
  type TimerRecord,
  type PauseDrainPolicy,
  type FireTimerCommand,
  type PauseRunCommand,
  type UnpauseRunCommand,
  type RunControlResult,
} from './run-timers';
export { isDelayMs } from './workflow';
export {
  messagesChannel,
  runChannels,
  MESSAGES_CHANNEL,
  type ChannelMessage,
  type RecordedConversation,
  type RecordedTurn,
} from './messages-channel';
export {
  COMMAND_ENVELOPE_SHAPE,
  COMMAND_ENVELOPE_VERSION,
  RUN_EVENT_SCHEMA_VERSION,
  upcastCommandEnvelope,
  upcastRunEvent,
  versionedCommand,
} from './schema-versions';
export {
  RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
  isTerminalRunStatus,
  type RunStatus,
  type TerminalRunStatus,
} from './run-status';
export {
  APPROVAL_RESOLVE_ACTIONS,
  offeredApprovalActions,
  legacyApprovalAction,
  type ApprovalResolveAction,
  type LegacyApprovalMapping,
} from './approval-answer';
export {
  CONVERSATION_TYPE_ID,
  CONVERSATION_FIELDS,
  CONVERSATION_PROVIDERS,
  LEGACY_CONVERSATION_FIELDS,
  closestField,
  conversationStepProblems,
  type ConversationStepProblem,
} from './agent-conversation-config';
export {
  encodeKeysetCursor,
  parseKeysetCursor,
  isStorableText,
  type KeysetPosition,
} from './keyset-cursor';
export {
  MAX_ESCALATION_REMINDERS,
  MAX_ESCALATION_APPROVERS,
  ESCALATION_DEFAULT_ACTIONS,
  escalationConfigProblems,
  type EscalationBounds,
  type EscalationConfigProblem,
} from './escalation-config';
