import { LlmProviderError } from './llm-provider.error';
import type { ChatChunk, ChatUsage, FinishReason } from './llm-provider.port';

/** A whole completion, as {@link collect} returns it. */
export interface CollectedCompletion {
  readonly text: string;
  readonly finishReason: FinishReason;
  readonly usage: ChatUsage | undefined;
}

/**
 * Drains a provider stream and returns the full reply from its `done` chunk.
 *
 * @throws {LlmProviderError} what the stream threw, or code `protocol` when it ended without `done`.
 * @example
 * ```ts
 * const { text } = await collect(provider.complete({ messages }));
 * ```
 */
export async function collect(chunks: AsyncIterable<ChatChunk>): Promise<CollectedCompletion> {
  for await (const chunk of chunks) {
    if (chunk.type === 'done') {
      return { text: chunk.text, finishReason: chunk.finishReason, usage: chunk.usage };
    }
  }
  throw new LlmProviderError('protocol', 'the completion stream ended without a done chunk');
}
