import { LlmConfigurationError } from '../llm-provider.error';
import { OPENAI_DEFAULTS, openAiConfigFromEnv, resolveOpenAiConfig } from './openai-compatible.config';

describe('resolveOpenAiConfig', () => {
  it('fills in defaults and builds the endpoint from a base URL with trailing slashes', () => {
    const config = resolveOpenAiConfig({ baseUrl: 'https://api.example.com/v1//', model: 'm' });
    expect(config).toMatchObject({
      endpoint: 'https://api.example.com/v1/chat/completions',
      origin: 'https://api.example.com',
      timeoutMs: OPENAI_DEFAULTS.timeoutMs,
      maxRetries: 2,
      includeUsage: true,
      apiKey: undefined,
    });
    expect(OPENAI_DEFAULTS.timeoutMs).toBe(60_000);
  });

  it.each([
    [{ baseUrl: '', model: 'm' }, /baseUrl is required/],
    [{ baseUrl: 'not a url', model: 'm' }, /not a URL/],
    [{ baseUrl: 'ftp://x', model: 'm' }, /http or https/],
    [{ baseUrl: 'https://user:secret@x', model: 'm' }, /not in baseUrl/],
    [{ baseUrl: 'http://x', model: ' ' }, /model is required/],
    [{ baseUrl: 'http://x', model: 'm', maxRetries: -1 }, /maxRetries/],
    [{ baseUrl: 'http://x', model: 'm', timeoutMs: 0 }, /timeoutMs/],
  ])('rejects %j', (config, message) => {
    expect(() => resolveOpenAiConfig(config)).toThrow(LlmConfigurationError);
    expect(() => resolveOpenAiConfig(config)).toThrow(message);
  });
});

describe('openAiConfigFromEnv', () => {
  it('reads OPENAI_BASE_URL, OPENAI_MODEL and the optional OPENAI_API_KEY', () => {
    expect(
      openAiConfigFromEnv({ OPENAI_BASE_URL: 'http://h/v1', OPENAI_MODEL: 'm', OPENAI_API_KEY: 'k' }),
    ).toEqual({
      baseUrl: 'http://h/v1',
      model: 'm',
      apiKey: 'k',
    });
    expect(openAiConfigFromEnv({ OPENAI_BASE_URL: 'http://h/v1', OPENAI_MODEL: 'm' })).toEqual({
      baseUrl: 'http://h/v1',
      model: 'm',
    });
  });

  it('names the missing variable', () => {
    expect(() => openAiConfigFromEnv({ OPENAI_MODEL: 'm' })).toThrow(/OPENAI_BASE_URL is not set/);
    expect(() => openAiConfigFromEnv({ OPENAI_BASE_URL: 'http://h' })).toThrow(/OPENAI_MODEL is not set/);
  });
});
