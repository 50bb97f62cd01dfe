import { LlmProviderError } from '../llm-provider.error';
import type { ChatUsage, FinishReason } from '../llm-provider.port';

/** What one streamed `chat.completion.chunk` (or the `[DONE]` sentinel) contributes. */
export type StreamPiece =
  | { readonly kind: 'end' }
  | {
      readonly kind: 'chunk';
      readonly text: string;
      readonly finishReason?: FinishReason;
      readonly usage?: ChatUsage;
    };

/** A whole non-streamed `chat.completion`. */
export interface CompletionBody {
  readonly text: string;
  readonly finishReason: FinishReason;
  readonly usage?: ChatUsage;
}

const DONE_SENTINEL = '[DONE]';

/**
 * Interprets the data of one server-sent event of a streamed chat completion: the text of
 * `choices[0].delta.content`, `choices[0].finish_reason` once set, `usage` when the server sends
 * it (the last chunk, with `stream_options.include_usage`), or the end sentinel `[DONE]`.
 *
 * @throws {LlmProviderError} code `protocol` for data that is not JSON; the mapped code when the
 *   server streams an `error` object instead of a chunk.
 */
export function interpretStreamData(data: string): StreamPiece {
  if (data.trim() === DONE_SENTINEL) return { kind: 'end' };
  const body = parseJson(data, 'a stream chunk');
  throwIfErrorBody(body);
  const choice = firstChoice(body);
  const delta = record(choice?.['delta']);
  const content = delta?.['content'];
  const finishReason = choice?.['finish_reason'];
  const usage = toUsage(body['usage']);
  return {
    kind: 'chunk',
    text: typeof content === 'string' ? content : '',
    ...(typeof finishReason === 'string' ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
  };
}

/**
 * Interprets a non-streamed chat completion (a server that ignored `stream: true` and answered
 * `application/json`): `choices[0].message.content`, `finish_reason` and `usage`.
 *
 * @throws {LlmProviderError} code `protocol` when the body is not a chat completion.
 */
export function interpretCompletionBody(text: string): CompletionBody {
  const body = parseJson(text, 'the completion');
  throwIfErrorBody(body);
  const choice = firstChoice(body);
  const message = record(choice?.['message']);
  if (!message) throw new LlmProviderError('protocol', 'the completion has no choices[0].message');
  const content = message['content'];
  const finishReason = choice?.['finish_reason'];
  const usage = toUsage(body['usage']);
  return {
    text: typeof content === 'string' ? content : '',
    finishReason: typeof finishReason === 'string' ? finishReason : 'stop',
    ...(usage ? { usage } : {}),
  };
}

/** The `error.message` (or `message`, or `detail`) of an OpenAI-style error body, if any. */
export function errorBodyMessage(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const object = record(body);
  const error = object?.['error'];
  const candidates = [record(error)?.['message'], error, object?.['message'], object?.['detail']];
  return candidates.find((value): value is string => typeof value === 'string' && value.length > 0);
}

function throwIfErrorBody(body: Record<string, unknown>): void {
  const error = body['error'];
  if (error === undefined || error === null) return;
  const detail = record(error);
  const message = typeof detail?.['message'] === 'string' ? detail['message'] : JSON.stringify(error);
  const kind = [detail?.['type'], detail?.['code']].filter((v) => typeof v === 'string').join(' ');
  const code = /rate.?limit/i.test(kind) ? 'rate_limited' : 'unavailable';
  throw new LlmProviderError(code, `the server reported an error mid-stream: ${message}`);
}

function parseJson(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LlmProviderError('protocol', `${what} is not JSON: ${excerpt(text)}`);
  }
  const object = record(value);
  if (!object) throw new LlmProviderError('protocol', `${what} is not a JSON object: ${excerpt(text)}`);
  return object;
}

function firstChoice(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const choices = body['choices'];
  if (!Array.isArray(choices)) return undefined;
  const indexed = choices.map(record).find((choice) => choice?.['index'] === 0);
  return indexed ?? record(choices[0]);
}

function toUsage(value: unknown): ChatUsage | undefined {
  const usage = record(value);
  const prompt = usage?.['prompt_tokens'];
  const completion = usage?.['completion_tokens'];
  if (typeof prompt !== 'number' || typeof completion !== 'number') return undefined;
  return { promptTokens: prompt, completionTokens: completion };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
