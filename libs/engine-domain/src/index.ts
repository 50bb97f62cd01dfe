export {
  decideRun,
  evolveRun,
  executionOrder,
  initialRunState,
  runEventId,
  RunAlreadyExists,
  type CommandContext,
  type RunCommand,
  type RunState,
  type RunStatus,
  type StartRun,
} from './run.decider';
