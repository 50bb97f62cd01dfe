export { evolveRunSnapshot, isTerminalStatus, RUN_SNAPSHOT_EVENTS, type RunSnapshot } from './run-snapshot.projection';
