export {
  LLM_PROVIDER,
  type ChatChunk,
  type ChatDelta,
  type ChatDone,
  type ChatMessage,
  type ChatRequest,
  type ChatRequestMetadata,
  type ChatRole,
  type ChatUsage,
  type CompleteOptions,
  type FinishReason,
  type LlmProvider,
} from './llm-provider.port';
export {
  LlmConfigurationError,
  LlmProviderError,
  type LlmErrorCode,
  type LlmProviderErrorOptions,
} from './llm-provider.error';
export { collect, type CollectedCompletion } from './collect.util';
export { OpenAiCompatibleProvider } from './openai-compatible.provider';
export {
  OPENAI_DEFAULTS,
  openAiConfigFromEnv,
  type OpenAiCompatibleConfig,
} from './openai/openai-compatible.config';
export { ScriptedProvider, type ScriptedProviderOptions } from './scripted.provider';
export type { ChunkSize, Script, ScriptReply } from './scripted/script.types';
export { createLlmProvider } from './provider.factory';
