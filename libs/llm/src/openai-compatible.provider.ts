import { LlmProviderError } from './llm-provider.error';
import type { ChatChunk, ChatMessage, ChatRequest, CompleteOptions, LlmProvider } from './llm-provider.port';
import { AttemptController } from './openai/attempt.controller';
import { errorCodeForStatus, retryAfterMs } from './openai/http-status.mapper';
import {
  errorBodyMessage,
  interpretCompletionBody,
  interpretStreamData,
} from './openai/openai-completion.mapper';
import {
  openAiConfigFromEnv,
  resolveOpenAiConfig,
  type OpenAiCompatibleConfig,
  type ResolvedOpenAiConfig,
} from './openai/openai-compatible.config';
import { readBody, readText } from './openai/response-body.reader';
import { parseSseStream } from './openai/sse.parser';
import { abortableSleep, throwIfAborted } from './shared/abortable-sleep.util';
import { redact } from './shared/redact.util';

const ERROR_BODY_LIMIT = 4096;
/** Extra headers whose values are credentials, masked like the API key. */
const SECRET_HEADER = /auth|key|token|secret|cookie/i;

/**
 * An {@link LlmProvider} for any server speaking the OpenAI chat-completions API (OpenAI, Azure
 * OpenAI behind a gateway, vLLM, Ollama, llama.cpp, LM Studio, LiteLLM, …), over `fetch`.
 *
 * It POSTs `${baseUrl}/chat/completions` with `stream: true` and streams `choices[0].delta.content`
 * as deltas; a server that answers `application/json` instead is read as one completion. Retryable
 * failures (429, 408, 5xx, connection refused, timeout) are retried up to `maxRetries` times, but
 * only before the first streamed byte, waiting what `Retry-After` asks (bounded by
 * `maxRetryDelayMs`) or an exponential backoff. Error messages never contain the API key.
 *
 * Message `name`s are sent as the API allows them (`[A-Za-z0-9_-]{1,64}`; other characters become `_`).
 *
 * @example
 * ```ts
 * const provider = OpenAiCompatibleProvider.fromEnv(process.env);
 * const { text } = await collect(provider.complete({ messages: [{ role: 'user', content: 'Hello' }] }));
 * ```
 */
export class OpenAiCompatibleProvider implements LlmProvider {
  readonly name = 'openai-compatible';
  private readonly config: ResolvedOpenAiConfig;

  /** @throws {LlmConfigurationError} for a missing or invalid setting. */
  constructor(config: OpenAiCompatibleConfig) {
    this.config = resolveOpenAiConfig(config);
  }

  /**
   * Builds a provider from `OPENAI_BASE_URL`, `OPENAI_MODEL` and `OPENAI_API_KEY`; `overrides`
   * set what the environment does not carry (timeouts, retries, headers).
   *
   * @throws {LlmConfigurationError} naming the missing variable.
   */
  static fromEnv(
    env: NodeJS.ProcessEnv = process.env,
    overrides: Partial<OpenAiCompatibleConfig> = {},
  ): OpenAiCompatibleProvider {
    return new OpenAiCompatibleProvider({ ...openAiConfigFromEnv(env), ...overrides });
  }

  async *complete(request: ChatRequest, options: CompleteOptions = {}): AsyncGenerator<ChatChunk> {
    const { response, attempt } = await this.send(request, options.signal);
    try {
      const json = /json/i.test(response.headers.get('content-type') ?? '');
      yield* json ? this.readCompletion(response, attempt) : this.readStream(response, attempt);
    } catch (error) {
      throw this.toError(error, attempt);
    } finally {
      attempt.abort('released');
      attempt.dispose();
    }
  }

  private async send(
    request: ChatRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; attempt: AttemptController }> {
    const body = JSON.stringify(this.requestBody(request));
    for (let retry = 0; ; retry++) {
      throwIfAborted(signal);
      const attempt = new AttemptController(signal, this.config.timeoutMs);
      let failure: LlmProviderError;
      try {
        attempt.arm();
        const response = await fetch(this.config.endpoint, {
          method: 'POST',
          headers: this.requestHeaders(),
          body,
          signal: attempt.signal,
        });
        if (response.ok) return { response, attempt };
        failure = await this.httpError(response, attempt);
      } catch (error) {
        failure = this.toError(error, attempt);
      }
      attempt.abort('released');
      attempt.dispose();
      if (!failure.retryable || retry >= this.config.maxRetries) throw failure;
      await abortableSleep(this.retryDelay(retry, failure.retryAfterMs), signal);
    }
  }

  private async *readStream(response: Response, attempt: AttemptController): AsyncGenerator<ChatChunk> {
    if (!response.body) throw new LlmProviderError('protocol', `${this.config.origin} answered with no body`);
    let text = '';
    let finishReason: string | undefined;
    let usage: { promptTokens: number; completionTokens: number } | undefined;
    let ended = false;
    for await (const event of parseSseStream(readBody(response.body, attempt))) {
      if (event.event === 'error') {
        const detail = errorBodyMessage(event.data) ?? event.data;
        throw new LlmProviderError('unavailable', `the server reported an error mid-stream: ${detail}`);
      }
      const piece = interpretStreamData(event.data);
      if (piece.kind === 'end') {
        ended = true;
        break;
      }
      if (piece.text) {
        text += piece.text;
        yield { type: 'delta', text: piece.text };
      }
      finishReason = piece.finishReason ?? finishReason;
      usage = piece.usage ?? usage;
    }
    if (!ended && finishReason === undefined) {
      throw new LlmProviderError(
        'protocol',
        `the stream from ${this.config.origin} ended before the completion finished`,
      );
    }
    yield { type: 'done', text, finishReason: finishReason ?? 'stop', ...(usage ? { usage } : {}) };
  }

  private async *readCompletion(response: Response, attempt: AttemptController): AsyncGenerator<ChatChunk> {
    const completion = interpretCompletionBody(await readText(response.body, attempt));
    if (completion.text) yield { type: 'delta', text: completion.text };
    yield { type: 'done', ...completion };
  }

  private async httpError(response: Response, attempt: AttemptController): Promise<LlmProviderError> {
    const body = await readText(response.body, attempt, ERROR_BODY_LIMIT).catch(() => '');
    const code = errorCodeForStatus(response.status);
    const detail = errorBodyMessage(body) ?? body.trim().slice(0, 300);
    const message = `${this.config.origin} answered HTTP ${response.status} (${code})${detail ? `: ${detail}` : ''}`;
    const wait = retryAfterMs(response.headers, Date.now());
    return new LlmProviderError(code, this.redact(message), {
      status: response.status,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
  }

  /** Maps whatever a fetch or a stream read threw to a provider error with a key-free message. */
  private toError(error: unknown, attempt: AttemptController): LlmProviderError {
    if (attempt.cause === 'aborted') {
      return new LlmProviderError('aborted', 'the completion was aborted by the caller');
    }
    if (attempt.cause === 'timeout') {
      const message = `${this.config.origin} sent nothing for ${this.config.timeoutMs} ms`;
      return new LlmProviderError('timeout', message);
    }
    if (error instanceof LlmProviderError) {
      const message = this.redact(error.message);
      if (message === error.message) return error;
      return new LlmProviderError(error.code, message, {
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      });
    }
    const reason = this.redact(describeNetworkError(error));
    return new LlmProviderError('unavailable', `cannot talk to ${this.config.origin}: ${reason}`);
  }

  private retryDelay(retry: number, retryAfter: number | undefined): number {
    const backoff = this.config.retryBaseDelayMs * 2 ** retry;
    return Math.min(retryAfter ?? backoff, this.config.maxRetryDelayMs);
  }

  private requestBody(request: ChatRequest): Record<string, unknown> {
    return {
      model: request.model ?? this.config.model,
      messages: request.messages.map(toWireMessage),
      stream: true,
      ...(this.config.includeUsage ? { stream_options: { include_usage: true } } : {}),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    };
  }

  private requestHeaders(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
      ...this.config.headers,
    };
  }

  private redact(text: string): string {
    const secretHeaders = Object.entries(this.config.headers).filter(([name]) => SECRET_HEADER.test(name));
    return redact(text, [this.config.apiKey, ...secretHeaders.map(([, value]) => value)]);
  }
}

function toWireMessage(message: ChatMessage): Record<string, string> {
  const wire: Record<string, string> = { role: message.role, content: message.content };
  if (message.name) wire['name'] = message.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return wire;
}

/**
 * `ECONNREFUSED`, `UND_ERR_SOCKET`, …: the innermost useful reason, without request details.
 * Duck-typed, since fetch errors may come from another realm (no shared `Error` class).
 */
function describeNetworkError(error: unknown): string {
  const { message, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
    message?: unknown;
    cause?: { code?: unknown; message?: unknown };
  };
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string' && cause.message) return cause.message;
  return typeof message === 'string' ? message : String(error);
}
