import { defineNode } from '../node';
import { maxSilenceOf } from './agent-conversation.nodes';

/**
 * `core.conversationGate`: one conversation held by one suspension (RFC 0005). Callers send turns
 * (`{operation: 'exchange', turn}`) and close it (`{operation: 'close', outcome}`); the node
 * completes with the outcome. A plain answer (no `operation`) still resolves it in one step (the
 * conformance "accept and route"). `participants` (RFC 0101) makes it multi-party: agent turns must
 * name a member as `speakerId`. `turnSchema` checks each later turn's content; `outcomeSchema` the outcome.
 */
export const conversationGateNode = defineNode({
  typeId: 'core.conversationGate',
  async execute(ctx) {
    const prompt =
      [ctx.config.prompt, ctx.config.title, ctx.node.name].find((p) => typeof p === 'string' && p !== '') ??
      'Your turn';
    const outcome = await ctx.interrupt<unknown>({
      kind: 'conversation.exchange',
      ...(typeof ctx.config.timeoutMs === 'number' ? { timeoutMs: ctx.config.timeoutMs } : {}),
      data: {
        conversationId: `${ctx.runId}:${ctx.nodeId}:${ctx.visit}`,
        prompt,
        ...(typeof ctx.config.outcomeSchema === 'object' && ctx.config.outcomeSchema !== null
          ? { outcomeSchema: ctx.config.outcomeSchema }
          : {}),
      },
      conversation: {
        ...maxSilenceOf(ctx),
        ...(Array.isArray(ctx.config.participants)
          ? { participants: ctx.config.participants as { agentId: string; name?: string }[] }
          : {}),
        ...(typeof ctx.config.turnSchema === 'object' && ctx.config.turnSchema !== null
          ? { turnSchema: ctx.config.turnSchema as Record<string, unknown> }
          : {}),
      },
    });
    // A session closed with `{operation: 'close', outcome}` (RFC 0005); a plain answer is the outcome itself.
    const closure = outcome as { operation?: unknown; outcome?: unknown } | null;
    if (closure && typeof closure === 'object' && closure.operation === 'close')
      return { outcome: closure.outcome ?? null };
    return { outcome };
  },
});
