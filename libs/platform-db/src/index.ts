export {
  createDataSource,
  openDatabase,
  ensureDatabase,
  adminUrl,
  type DatabaseOptions,
} from './data-source';
export { MIGRATIONS } from './migrations';
export { READ_MODEL_ENTITIES, RunEventEntity, RunSnapshotEntity } from './read-models';
export {
  appendToOutbox,
  dropHeldAppends,
  flushHeldAppends,
  holdAppends,
  OutboxRelay,
  type OutboxMessage,
  type Publish,
} from './outbox';
export { decideOnce, pruneProcessedMessages, storedReply } from './processed-messages';
export {
  claimIdempotencyKey,
  IDEMPOTENCY_RETENTION_MS,
  pruneIdempotencyRecords,
  releaseIdempotencyKey,
  settleIdempotencyKey,
  type IdempotencyClaim,
  type IdempotencyScope,
  type SettledState,
  type StoredResponse,
} from './idempotency-records';
export { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
export { DataDirLockedError, lockDataDir, type DataDirLock } from './data-dir.lock';
export { needsOwnVacuum, PeriodicVacuum, VACUUM_EVERY_MS } from './periodic-vacuum';
export { InProcessRunEventFeed, PgRunEventFeed, type RunEventFeed } from './run-event-feed';
export { isDatabaseUnavailable, isTransientDatabaseFailure } from './database-unavailable';
export { afterCommit, transaction, isPipelined, StatementBatch } from './transaction';
export { flushHeldWrites, holdWrite, type HeldWrite } from './held-writes';
export { ReadAhead, takeReadAhead, type ReadAheadPart } from './read-ahead';
export { chunksWithinParameterLimit, MAX_BIND_PARAMETERS, valuesTuples } from './parameter-chunks';
export {
  CommandSeam,
  refusingDomainErrors,
  type CommandRoute,
  type CommandRoutes,
  type CommandSeamOptions,
  type SeamCommand,
  type SeamMessage,
  type UnappliedNotice,
} from './command-seam';
export { PollLoop } from './poll-loop';
export { DueTimes, ONE_PROCESS_POLL_MS } from './due-times';
export { returnedRows } from './returned-rows';
export {
  DecidedThrough,
  MAX_DECIDED_THROUGH,
  type LocalDecider,
  type PreparedCommand,
  type RootMessage,
  type Unsettled,
} from './decided-through';
export {
  DecisionProjection,
  PROJECTED_IN_DECISION,
  type ProjectedInDecision,
  type ProjectionLeftToConsumer,
  type RunEventProjector,
} from './decision-projection';
