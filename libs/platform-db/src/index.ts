export { createDataSource, openDatabase, ensureDatabase, adminUrl, type DatabaseOptions } from './data-source';
export { MIGRATIONS } from './migrations';
export { READ_MODEL_ENTITIES, RunEventEntity, RunSnapshotEntity } from './read-models';
export { appendToOutbox, OutboxRelay, type OutboxMessage, type Publish } from './outbox';
export { decideOnce, pruneProcessedMessages, storedReply } from './processed-messages';
export { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
export { InProcessRunEventFeed, PgRunEventFeed, type RunEventFeed } from './run-event-feed';
export { isDatabaseUnavailable } from './database-unavailable';
export { transaction, isPipelined, StatementBatch } from './transaction';
