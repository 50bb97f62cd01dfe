export {
  evolveRunSnapshot,
  pendingInterruptOf,
  reassignedApprovers,
  RUN_SNAPSHOT_EVENTS,
  type PendingInterruptView,
  type RunSnapshot,
} from './run-snapshot.projection';
export {
  evolveConversation,
  conversationIdOf,
  isConversationEvent,
  CONVERSATION_EVENTS,
  type ConversationChange,
  type ConversationStatus,
  type ConversationView,
  type ProjectedTurn,
} from './conversation.projection';
export { projectionErrorOf, storableNumber, type ProjectionError } from './storable';
