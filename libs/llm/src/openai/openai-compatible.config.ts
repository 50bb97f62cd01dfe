import { LlmConfigurationError } from '../llm-provider.error';

/** Settings of an {@link OpenAiCompatibleProvider}. */
export interface OpenAiCompatibleConfig {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. Never logged, never part of an error. */
  readonly apiKey?: string;
  /** The model of requests that do not name one. */
  readonly model: string;
  /**
   * How long to wait for the response headers, and then for each next piece of the stream
   * (an inactivity limit, so a long reply that keeps streaming is not cut). Default 60 000.
   */
  readonly timeoutMs?: number;
  /** Retries of a retryable failure (429, 5xx, 408, connection refused, timeout) before the first streamed byte. Default 2. */
  readonly maxRetries?: number;
  /** First backoff delay, doubled on each retry, when the server sent no `Retry-After`. Default 500. */
  readonly retryBaseDelayMs?: number;
  /** Upper bound of any retry delay, including one asked for by `Retry-After`. Default 10 000. */
  readonly maxRetryDelayMs?: number;
  /** Ask for token usage in the last streamed chunk (`stream_options.include_usage`). Default true. */
  readonly includeUsage?: boolean;
  /** Extra request headers (e.g. an organisation or a gateway key). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A config with every default filled in and the base URL validated. */
export type ResolvedOpenAiConfig = Required<Omit<OpenAiCompatibleConfig, 'apiKey'>> & {
  readonly apiKey: string | undefined;
  /** `${baseUrl}/chat/completions`. */
  readonly endpoint: string;
  /** Scheme and host of the base URL, safe to show in errors (no credentials, no path). */
  readonly origin: string;
};

export const OPENAI_DEFAULTS = {
  timeoutMs: 60_000,
  maxRetries: 2,
  retryBaseDelayMs: 500,
  maxRetryDelayMs: 10_000,
} as const;

/**
 * Validates a config and fills in its defaults.
 *
 * @throws {LlmConfigurationError} for a missing or invalid base URL or model, or a negative limit.
 */
export function resolveOpenAiConfig(config: OpenAiCompatibleConfig): ResolvedOpenAiConfig {
  const baseUrl = config.baseUrl?.trim().replace(/\/+$/, '');
  if (!baseUrl) throw new LlmConfigurationError('openai-compatible provider: baseUrl is required');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new LlmConfigurationError(`openai-compatible provider: baseUrl is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LlmConfigurationError('openai-compatible provider: baseUrl must be http or https');
  }
  if (url.username || url.password) {
    throw new LlmConfigurationError('openai-compatible provider: put credentials in apiKey, not in baseUrl');
  }
  if (!config.model?.trim()) throw new LlmConfigurationError('openai-compatible provider: model is required');
  const resolved: ResolvedOpenAiConfig = {
    baseUrl,
    apiKey: config.apiKey || undefined,
    model: config.model.trim(),
    timeoutMs: config.timeoutMs ?? OPENAI_DEFAULTS.timeoutMs,
    maxRetries: config.maxRetries ?? OPENAI_DEFAULTS.maxRetries,
    retryBaseDelayMs: config.retryBaseDelayMs ?? OPENAI_DEFAULTS.retryBaseDelayMs,
    maxRetryDelayMs: config.maxRetryDelayMs ?? OPENAI_DEFAULTS.maxRetryDelayMs,
    includeUsage: config.includeUsage ?? true,
    headers: config.headers ?? {},
    endpoint: `${baseUrl}/chat/completions`,
    origin: url.origin,
  };
  for (const key of ['timeoutMs', 'maxRetries', 'retryBaseDelayMs', 'maxRetryDelayMs'] as const) {
    if (!Number.isFinite(resolved[key]) || resolved[key] < 0) {
      throw new LlmConfigurationError(`openai-compatible provider: ${key} must be a non-negative number`);
    }
  }
  if (resolved.timeoutMs === 0)
    throw new LlmConfigurationError('openai-compatible provider: timeoutMs must be positive');
  return resolved;
}

/**
 * Reads a config from `OPENAI_BASE_URL` (required), `OPENAI_MODEL` (required) and
 * `OPENAI_API_KEY` (optional; local servers often need none).
 *
 * @throws {LlmConfigurationError} naming the missing variable.
 */
export function openAiConfigFromEnv(env: NodeJS.ProcessEnv): OpenAiCompatibleConfig {
  const baseUrl = env['OPENAI_BASE_URL']?.trim();
  const model = env['OPENAI_MODEL']?.trim();
  if (!baseUrl)
    throw new LlmConfigurationError('OPENAI_BASE_URL is not set (e.g. https://api.openai.com/v1)');
  if (!model) throw new LlmConfigurationError('OPENAI_MODEL is not set (the model requests use by default)');
  const apiKey = env['OPENAI_API_KEY']?.trim();
  return { baseUrl, model, ...(apiKey ? { apiKey } : {}) };
}
