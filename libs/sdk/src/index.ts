export { OpenWopClient } from './client';
export type {
  ClientOptions,
  ConversationPage,
  ConversationSummary,
  ConversationTurn,
  ConversationTurnInput,
  CreateRunRequest,
  CreateRunResponse,
  ForkRunRequest,
  ForkRunResponse,
  InterruptPage,
  InterruptSummary,
  ListInterruptsQuery,
  ListRunsQuery,
  PendingInterrupt,
  PollResponse,
  ResolveResult,
  RunPage,
  RunSnapshotBody,
  RunStreamEvent,
  RunSummary,
  StreamEventsOptions,
  TokenInspection,
} from './client.types';
export {
  OpenWopApiError,
  OpenWopAuthError,
  OpenWopConflictError,
  OpenWopGoneError,
  OpenWopNetworkError,
  OpenWopNotFoundError,
  OpenWopUnavailableError,
  OpenWopUnprocessableError,
  OpenWopValidationError,
  apiErrorFrom,
} from './errors';
export { SseParser, type SseMessage } from './sse.parser';
export { streamRunEvents, isTerminalEvent, type StreamTransport } from './run-event.stream';
export { tokenFromCallbackUrl, callbackUrlOf } from './tokens';
