export { Topics, ConsumerGroups, Headers, replyTopic, type TopicName } from './topics';
export type { Actor, CommandEnvelope, CommandReply, ReplyError } from './envelope';
export { RUN_EVENT_TYPES, TERMINAL_RUN_EVENT_TYPES, type RunEventDoc, type RunEventType } from './run-event';
export {
  assertRunEvent,
  assertErrorEnvelope,
  SchemaValidationError,
  type SchemaViolation,
} from './schema-validation';
export { assertCommand } from './message-validation';
export {
  StartRunData,
  ENGINE_COMMAND_DATA,
  type StartRunCommand,
  type StartRunResult,
  type EngineCommand,
} from './engine-commands';
export { SUPPORTED_NODE_TYPES, type WorkflowDefinition, type WorkflowNode, type WorkflowEdge } from './workflow';
export { CONFORMANCE_FIXTURES, SEEDED_FIXTURES, isRunnable } from './fixtures';
