import { LlmProviderError } from '../llm-provider.error';
import type { ChatRequest } from '../llm-provider.port';
import type { CompiledScript } from './script.parser';

/**
 * Picks the reply of a request: the first row (in script order) whose agent and match apply,
 * then that row's next reply for the request's agent; the script's default when no row applies.
 * The only state is one counter per (row, agent), so the same sequence of requests always gets
 * the same replies.
 */
export class ReplySelector {
  private readonly answered = new Map<string, number>();

  constructor(private readonly script: CompiledScript) {}

  /** @throws {LlmProviderError} code `bad_request` when no row applies and the script has no default. */
  select(request: ChatRequest): string {
    const agentId = request.metadata?.agentId;
    const message = lastUserMessage(request);
    const index = this.script.rows.findIndex(
      (row) => (row.agentId === undefined || row.agentId === agentId) && row.matches(message),
    );
    const row = this.script.rows[index];
    if (!row) return this.fallback(agentId, message);
    const key = `${index}\u0000${agentId ?? ''}`;
    const count = this.answered.get(key) ?? 0;
    this.answered.set(key, count + 1);
    return row.replies[count % row.replies.length] ?? '';
  }

  private fallback(agentId: string | undefined, message: string): string {
    if (this.script.fallback !== undefined) return this.script.fallback;
    const who = agentId === undefined ? 'a request without agentId' : `agent ${JSON.stringify(agentId)}`;
    const excerpt = JSON.stringify(message.length > 80 ? `${message.slice(0, 80)}…` : message);
    throw new LlmProviderError(
      'bad_request',
      `scripted provider: no reply applies to ${who} and message ${excerpt}, and the script has no default`,
    );
  }
}

function lastUserMessage(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (message?.role === 'user') return message.content;
  }
  return '';
}
