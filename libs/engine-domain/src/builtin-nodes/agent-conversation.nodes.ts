import { agentsOf } from '../agent-driver';
import { contentText } from '../conversation-view';
import { defineNode, type NodeContext } from '../node';

/**
 * What the interrupt service resumes a closed conversation with (recorded in `interrupt.resolved`,
 * so a re-execution reads it back and never asks again).
 */
export interface ConversationClosure {
  readonly operation: 'close';
  readonly conversationId: string;
  readonly outcome: unknown;
  readonly reason: string;
  readonly turnCount: number;
  readonly lastAgentTurn?: { readonly content: unknown; readonly speakerId?: string };
  /** The latest turns (at most 10) and a line on the older ones: what `continue_from` carries. */
  readonly tail: readonly Record<string, unknown>[];
  readonly summary?: string;
}

function timeoutOf(ctx: NodeContext): { timeoutMs?: number } {
  const t = ctx.config.timeout_ms ?? ctx.config.timeoutMs;
  return typeof t === 'number' && Number.isInteger(t) && t > 0 ? { timeoutMs: t } : {};
}

/** `max_silence_ms`: how long the talk may go quiet before an audit event records it. */
export function maxSilenceOf(ctx: NodeContext): { maxSilenceMs?: number } {
  const t = ctx.config.max_silence_ms ?? ctx.config.maxSilenceMs;
  return typeof t === 'number' && Number.isInteger(t) && t > 0 ? { maxSilenceMs: t } : {};
}

/** Suspends on one conversation for the node's whole talk and turns its closure into the node's output. */
async function converse(
  ctx: NodeContext,
  opening: { prompt?: string; participants?: { agentId: string; name?: string }[]; agentId?: string },
): Promise<Record<string, unknown>> {
  const conversationId = `${ctx.runId}:${ctx.nodeId}:${ctx.visit}`;
  const closure = await ctx.interrupt<ConversationClosure>({
    kind: 'conversation.exchange',
    ...timeoutOf(ctx),
    // `prompt` is what a person sees on the pending interrupt; turn 0 is the prompt only when the workflow gave one.
    data: { conversationId, prompt: opening.prompt ?? `Conversation in ${ctx.node.name ?? ctx.nodeId}` },
    conversation: {
      ...maxSilenceOf(ctx),
      ...(opening.agentId !== undefined ? { agentId: opening.agentId } : {}),
      ...(opening.participants ? { participants: opening.participants } : {}),
      ...(opening.prompt !== undefined
        ? { initialTurn: { from: 'user', role: 'user' as const, content: opening.prompt } }
        : {}),
    },
  });
  return {
    reply: closure.lastAgentTurn ? contentText(closure.lastAgentTurn.content) : '',
    conversationId: closure.conversationId,
    turnCount: closure.turnCount,
    reason: closure.reason,
    outcome: closure.outcome ?? null,
    context: { turns: closure.tail, ...(closure.summary ? { summary: closure.summary } : {}) },
  };
}

const promptOf = (ctx: NodeContext): string | undefined => {
  const p = ctx.config.prompt ?? ctx.config.topic ?? ctx.inputs.prompt;
  return typeof p === 'string' && p !== '' ? p : undefined;
};

/**
 * `agent.conversation`: an agent converses with a person inside one suspended node. The agent
 * speaks first, then answers every turn the person sends; the person's close resumes the node with
 * the agent's last reply as `reply`.
 */
export const agentConversationNode = defineNode({
  typeId: 'agent.conversation',
  async execute(ctx) {
    const [agent] = agentsOf(ctx.node);
    const prompt = promptOf(ctx);
    return converse(ctx, { agentId: agent!.agentId, ...(prompt !== undefined ? { prompt } : {}) });
  },
});

/**
 * `agent.dialogue`: two (or more) agents talk freely, with no turn order and no automatic close,
 * until one calls its close tool, says the sentinel phrase, replies empty, or `timeout_ms` passes.
 */
export const agentDialogueNode = defineNode({
  typeId: 'agent.dialogue',
  async execute(ctx) {
    const participants = agentsOf(ctx.node).map((a) => ({
      agentId: a.agentId,
      ...(a.name ? { name: a.name } : {}),
    }));
    const prompt = promptOf(ctx);
    return converse(ctx, { participants, ...(prompt !== undefined ? { prompt } : {}) });
  },
});

/** `agent.council`: one prompt, N named agents answering in one shared, attributed transcript. */
export const agentCouncilNode = defineNode({
  typeId: 'agent.council',
  async execute(ctx) {
    const participants = agentsOf(ctx.node).map((a) => ({
      agentId: a.agentId,
      ...(a.name ? { name: a.name } : {}),
    }));
    const prompt = promptOf(ctx) ?? 'The council is asked for its view.';
    return converse(ctx, { participants, prompt });
  },
});
