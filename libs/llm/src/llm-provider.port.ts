/**
 * The LLM provider port: one streaming chat completion per call. Agent conversations
 * (RFC 0005, RFC 0101) ask a provider for an agent's next turn and fold the streamed text into
 * `conversation.exchanged` events. Two adapters implement it: `OpenAiCompatibleProvider` (any
 * server speaking the OpenAI chat-completions API) and `ScriptedProvider` (deterministic
 * replies for tests and demos).
 *
 * Guarantees every adapter keeps:
 * - a call yields zero or more `delta` chunks, then exactly one `done` chunk, then ends;
 * - `done.text` equals the concatenation of every `delta.text` of that call, in order;
 * - a failure is thrown from the iterator as an {@link LlmProviderError} (never yielded);
 * - aborting `options.signal` stops the call promptly with code `aborted`, and leaving the
 *   iteration early (`break`) releases the underlying connection or timers.
 *
 * @example
 * ```ts
 * for await (const chunk of provider.complete({ messages: [{ role: 'user', content: 'Hi' }] })) {
 *   if (chunk.type === 'delta') process.stdout.write(chunk.text);
 * }
 * ```
 */
export interface LlmProvider {
  /** A short adapter name for logs and telemetry (`openai-compatible`, `scripted`). */
  readonly name: string;
  /**
   * Streams one completion of `request`.
   *
   * @throws {LlmProviderError} from the iterator, once the call failed.
   */
  complete(request: ChatRequest, options?: CompleteOptions): AsyncIterable<ChatChunk>;
}

/** Who wrote a message, in the chat-completions sense. */
export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /** Optional speaker name (for example an agent id in a group conversation). */
  readonly name?: string;
}

/** Where a request comes from; adapters may use it to pick replies (scripted) or tag calls. */
export interface ChatRequestMetadata {
  readonly agentId?: string;
  readonly conversationId?: string;
  readonly turnIndex?: number;
}

export interface ChatRequest {
  /** Overrides the adapter's configured model. */
  readonly model?: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly metadata?: ChatRequestMetadata;
}

export interface CompleteOptions {
  /** Aborts the call; the iterator then throws an {@link LlmProviderError} with code `aborted`. */
  readonly signal?: AbortSignal;
}

/** Token counts, when the adapter knows them. */
export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/**
 * Why the completion ended, as the server reported it: usually `stop` (natural end) or
 * `length` (token limit); servers may report others (`content_filter`, `tool_calls`).
 */
export type FinishReason = string;

/** A piece of the reply, in order. */
export interface ChatDelta {
  readonly type: 'delta';
  readonly text: string;
}

/** The last chunk of a call: the full reply text and why it ended. */
export interface ChatDone {
  readonly type: 'done';
  readonly text: string;
  readonly finishReason: FinishReason;
  readonly usage?: ChatUsage;
}

export type ChatChunk = ChatDelta | ChatDone;

/** DI token for the provider in Nest modules. */
export const LLM_PROVIDER = Symbol('LLM_PROVIDER');
