/**
 * The transactional outbox (ADR 0001): appending in a decision's transaction (`outbox-append.ts`),
 * publishing and deleting what was appended (`outbox-relay.ts`), and the deletes of published rows
 * that ride the next closing statement (`outbox-published-deletes.ts`).
 */
export {
  appendToOutbox,
  dropHeldAppends,
  flushHeldAppends,
  heldAppendsOf,
  holdAppends,
  writeHeldAppends,
  writeHeldDecisions,
  type DecisionRecord,
  type OutboxMessage,
  type TopicKey,
  type TracedMessage,
  type WrittenDecisions,
} from './outbox-append';
export { OutboxRelay, type Publish } from './outbox-relay';
