export {
  HISTORY_FORMAT,
  currentVersions,
  runEventsOf,
  type RecordedHistory,
  type RecordedVersions,
  type HistoryStep,
  type RunStep,
  type InterruptStep,
  type ConversationStep,
} from './history';
export { HistoryDivergence, firstDifference, asJson, type Difference } from './divergence';
export {
  replayHistory,
  decideStep,
  newStores,
  remember,
  type Decided,
  type StepInput,
  type Stores,
} from './replay';
