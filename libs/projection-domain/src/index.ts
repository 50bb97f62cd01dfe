export {
  evolveRunSnapshot,
  isTerminalStatus,
  pendingInterruptOf,
  RUN_SNAPSHOT_EVENTS,
  type PendingInterruptView,
  type RunSnapshot,
} from './run-snapshot.projection';
