import { LlmConfigurationError } from './llm-provider.error';
import { createLlmProvider } from './provider.factory';

describe('createLlmProvider', () => {
  it('builds the OpenAI-compatible provider when OPENAI_BASE_URL is set', () => {
    const provider = createLlmProvider({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_MODEL: 'm' });
    expect(provider.name).toBe('openai-compatible');
    expect(
      createLlmProvider({ LLM_PROVIDER: 'OpenAI', OPENAI_BASE_URL: 'http://h/v1', OPENAI_MODEL: 'm' }).name,
    ).toBe('openai-compatible');
  });

  it.each([
    [{}, /no LLM provider is configured: set OPENAI_BASE_URL/],
    [{ LLM_PROVIDER: 'scripted' }, /LLM_PROVIDER=scripted needs LLM_SCRIPT_FILE/],
    [{ LLM_PROVIDER: 'openai' }, /OPENAI_BASE_URL is not set/],
    [{ OPENAI_BASE_URL: 'http://h/v1' }, /OPENAI_MODEL is not set/],
    [{ LLM_PROVIDER: 'gpt' }, /LLM_PROVIDER="gpt" is unknown; use one of scripted, openai/],
    [
      { LLM_PROVIDER: 'scripted', LLM_SCRIPT_FILE: '/nonexistent/script.yaml' },
      /script \/nonexistent\/script\.yaml cannot be read/,
    ],
  ])('explains what is missing for %j', (env, message) => {
    expect(() => createLlmProvider(env)).toThrow(LlmConfigurationError);
    expect(() => createLlmProvider(env)).toThrow(message);
  });
});
