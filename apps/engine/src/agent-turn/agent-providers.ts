import { Injectable } from '@nestjs/common';
import { createLlmProvider, ScriptedProvider, type LlmProvider } from '@openwop/llm';
import type { AgentSpec } from '@openwop/engine-domain';

/**
 * The LLM provider of an agent turn: a scripted agent gets a one-reply scripted provider (its
 * reply is chosen by the engine, deterministically, from the node's script), any other agent the
 * host's configured provider (`LLM_PROVIDER`, `OPENAI_BASE_URL`/`OPENAI_API_KEY`/`OPENAI_MODEL`).
 * `AGENT_TOKEN_DELAY_MS` slows scripted replies to a visible stream for demos.
 */
@Injectable()
export class AgentProviders {
  private configured: LlmProvider | undefined;
  private readonly tokenDelayMs = Math.max(0, Number(process.env.AGENT_TOKEN_DELAY_MS ?? 0) || 0);

  providerFor(agent: AgentSpec, scripted: string | undefined): LlmProvider {
    if (scripted !== undefined || agent.provider === 'scripted') {
      const reply = scripted ?? '';
      return new ScriptedProvider({
        replies: [{ reply }],
        default: reply,
        chunkSize: 'word',
        tokenDelayMs: this.tokenDelayMs,
      });
    }
    this.configured ??= createLlmProvider(process.env);
    return this.configured;
  }
}
