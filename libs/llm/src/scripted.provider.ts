import { readFileSync } from 'node:fs';
import { LlmConfigurationError } from './llm-provider.error';
import type { ChatChunk, ChatRequest, CompleteOptions, LlmProvider } from './llm-provider.port';
import { chunkReply, countWords } from './scripted/reply.chunker';
import { ReplySelector } from './scripted/reply.selector';
import { compileScript, parseScriptText, type CompiledScript } from './scripted/script.parser';
import type { ChunkSize, Script } from './scripted/script.types';
import { abortableSleep, throwIfAborted } from './shared/abortable-sleep.util';

/** Settings that override a script's own (handy to run a demo script at full speed in tests). */
export interface ScriptedProviderOptions {
  readonly tokenDelayMs?: number;
  readonly chunkSize?: ChunkSize;
  /** Names the script in error messages (default `script`; `fromFile` uses the path). */
  readonly source?: string;
}

/**
 * A deterministic {@link LlmProvider} for tests and demos: it answers from a {@link Script}
 * (see `ReplySelector` for how a reply is picked), streams the reply in chunks with an optional
 * delay before each one, and ends with `done` (`finishReason: 'stop'`, usage counted in words).
 * An empty reply streams no delta, only `done` with `text: ''`. The same sequence of requests to
 * a new provider always streams the same chunks.
 *
 * @example
 * ```ts
 * const provider = new ScriptedProvider({ replies: [{ agentId: 'critic', reply: ['No.', ''] }] });
 * const { text } = await collect(provider.complete({ messages, metadata: { agentId: 'critic' } }));
 * ```
 */
export class ScriptedProvider implements LlmProvider {
  readonly name = 'scripted';
  private readonly script: CompiledScript;
  private readonly selector: ReplySelector;

  /** @throws {LlmConfigurationError} when the script or an option is invalid. */
  constructor(script: Script, options: ScriptedProviderOptions = {}) {
    const { source = 'script', ...overrides } = options;
    const isObject = typeof script === 'object' && script !== null && !Array.isArray(script);
    this.script = compileScript(isObject ? { ...script, ...definedOnly(overrides) } : script, source);
    this.selector = new ReplySelector(this.script);
  }

  /**
   * Loads a JSON (`.json`) or YAML script file.
   *
   * @throws {LlmConfigurationError} naming the file when it cannot be read or is not a valid script.
   */
  static fromFile(path: string, options: ScriptedProviderOptions = {}): ScriptedProvider {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new LlmConfigurationError(`script ${path} cannot be read: ${reason}`);
    }
    return new ScriptedProvider(parseScriptText(text, path) as Script, { source: path, ...options });
  }

  async *complete(request: ChatRequest, options: CompleteOptions = {}): AsyncGenerator<ChatChunk> {
    const { signal } = options;
    throwIfAborted(signal);
    const reply = this.selector.select(request);
    let text = '';
    for (const piece of chunkReply(reply, this.script.chunkSize)) {
      await abortableSleep(this.script.tokenDelayMs, signal);
      text += piece;
      yield { type: 'delta', text: piece };
    }
    throwIfAborted(signal);
    const promptTokens = request.messages.reduce((sum, message) => sum + countWords(message.content), 0);
    yield {
      type: 'done',
      text,
      finishReason: 'stop',
      usage: { promptTokens, completionTokens: countWords(text) },
    };
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
