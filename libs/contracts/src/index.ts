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
  RegisterWorkflowData,
  GetWorkflowData,
  ENGINE_COMMAND_DATA,
  type StartRunCommand,
  type StartRunResult,
  type ResumeRunCommand,
  type RecordConversationCommand,
  type AgentTurnCommand,
  RecordConversationData,
  AgentTurnData,
  type CancelRunEngineCommand,
  type RegisterWorkflowCommand,
  type GetWorkflowCommand,
  type EngineCommand,
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
  type ClarificationData,
  type ExternalEventData,
  type CustomData,
  type LowConfidenceData,
  type InterruptPayload,
  type InterruptRecord,
} from './interrupt';
export {
  OpenInterruptData,
  ResolveInterruptData,
  CancelRunData,
  ExpireInterruptData,
  INTERRUPT_COMMAND_DATA,
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
  forkSourceOf,
  type ForkMode,
  type ForkResolution,
  type ForkSource,
  type ComparableRunEvent,
  type ForkRunCommand,
  type ForkRunResult,
} from './fork-commands';
export { refusal, validationRefusal } from './command-reply';
export {
  conversationLimits,
  conversationRefusal,
  CONVERSATION_NODE_TYPES,
  type CapabilityRefusal,
  MAX_CONVERSATION_PARTICIPANTS_ENV,
  DEFAULT_MAX_CONVERSATION_PARTICIPANTS,
  type ConversationLimits,
} from './conversation-limits';
