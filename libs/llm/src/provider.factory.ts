import { LlmConfigurationError } from './llm-provider.error';
import type { LlmProvider } from './llm-provider.port';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import { ScriptedProvider } from './scripted.provider';

const KINDS = ['scripted', 'openai'] as const;

/**
 * Builds the provider the environment asks for:
 * - `LLM_PROVIDER=scripted` with `LLM_SCRIPT_FILE` (a JSON or YAML script, see `Script`);
 * - `LLM_PROVIDER=openai` (the default when `OPENAI_BASE_URL` is set) with `OPENAI_BASE_URL`,
 *   `OPENAI_MODEL` and optionally `OPENAI_API_KEY`.
 *
 * @throws {LlmConfigurationError} explaining what to set when the configuration is missing,
 *   unknown or invalid.
 * @example
 * ```ts
 * const provider = createLlmProvider(process.env);
 * ```
 */
export function createLlmProvider(env: NodeJS.ProcessEnv = process.env): LlmProvider {
  const kind = env['LLM_PROVIDER']?.trim().toLowerCase() || (env['OPENAI_BASE_URL']?.trim() ? 'openai' : '');
  switch (kind) {
    case 'scripted': {
      const file = env['LLM_SCRIPT_FILE']?.trim();
      if (!file) {
        throw new LlmConfigurationError(
          'LLM_PROVIDER=scripted needs LLM_SCRIPT_FILE (the path of a JSON or YAML script)',
        );
      }
      return ScriptedProvider.fromFile(file);
    }
    case 'openai':
    case 'openai-compatible':
      return OpenAiCompatibleProvider.fromEnv(env);
    case '':
      throw new LlmConfigurationError(
        'no LLM provider is configured: set OPENAI_BASE_URL and OPENAI_MODEL (and OPENAI_API_KEY if the server needs one), ' +
          'or LLM_PROVIDER=scripted with LLM_SCRIPT_FILE',
      );
    default:
      throw new LlmConfigurationError(
        `LLM_PROVIDER=${JSON.stringify(env['LLM_PROVIDER'])} is unknown; use one of ${KINDS.join(', ')}`,
      );
  }
}
