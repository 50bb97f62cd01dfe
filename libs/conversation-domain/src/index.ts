export type {
  TurnRole,
  AgentRef,
  TurnAgentRef,
  ConversationTurn,
  TurnInput,
  TurnSchema,
  ConversationOpenedPayload,
  ConversationExchangedPayload,
  ConversationClosedPayload,
} from './conversation.types';
export type {
  OpenConversation,
  ExchangeTurn,
  CloseConversation,
  ExpireConversation,
  ConversationCommand,
} from './conversation.commands';
export {
  TIMEOUT_REASON,
  DEFAULT_CLOSE_REASON,
  type ConversationEventType,
  type ConversationEventMeta,
  type ConversationOpened,
  type ConversationExchanged,
  type ConversationClosedEvent,
  type ConversationEvent,
} from './conversation.events';
export {
  evolveConversation,
  initialConversationState,
  type ConversationState,
  type ConversationStatus,
  type NotOpenConversation,
  type OpenConversationState,
  type ClosedConversation,
} from './conversation.state';
export {
  ConversationNotFound,
  ConversationClosed,
  InvalidTurn,
  MissingSpeaker,
  SpeakerNotParticipant,
  RosterExceeded,
  InvalidConversation,
  type Violation,
} from './conversation.errors';
export { decideConversation, conversationDecider } from './conversation.decider';
export { conversationIdOf, conversationEventId } from './conversation.ids';
export { transcriptOf, recordedTurn } from './transcript';
export { councilRound, speakerOrder, type CouncilRound } from './council.policy';
export {
  nextFreeTalkStep,
  isEmptyReply,
  type FreeTalkCloseReason,
  type FreeTalkReply,
  type FreeTalkLimits,
  type FreeTalkStep,
} from './free-talk.policy';
export {
  isConversationResolve,
  parseConversationResolve,
  type ConversationResolve,
} from './conversation.resolve';
export {
  CONVERSATION_TAIL,
  SYSTEM_ID_FALLBACKS,
  CONVERSATION_PRINCIPAL,
  conversationAddressed,
  silenceOfOpening,
  turnIdsToLoad,
  storedConversationOf,
  conversationOfStored,
  turnsSince,
  silenceDueAt,
  silentConversationOf,
  earlierTurnsSummary,
  digestOf,
  closureOf,
  lastRecordedTurn,
  conversationResolveResult,
  converseCommand,
  silenceAuditCommand,
  type HeldConversation,
  type StoredConversation,
  type ConversationHome,
  type SilentConversation,
  type ConversationDigest,
  type ConversationCause,
  type ConversationTarget,
  type AddressableInterrupt,
} from './conversation.coordination';
export {
  CONVERSATION_STATE_SHAPE,
  conversationDocument,
  conversationFromDocument,
} from './conversation-state.version';
