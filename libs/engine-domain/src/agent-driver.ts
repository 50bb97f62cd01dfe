import type { RunEventDoc, WorkflowNode } from '@openwop/contracts';
import { ownValue } from '@openwop/kernel';
import { isEmptyReply } from '@openwop/conversation-domain';
import { contentText, lastTurnOf, olderSummary, speakerOf, type ConversationView } from './conversation-view';
import type { RunRecord } from './run.state';

/** Node types whose conversations agents drive (the engine calls their LLM provider). */
export const AGENT_NODE_TYPES = ['agent.conversation', 'agent.dialogue', 'agent.council'] as const;

/** What an agent replies to call its close tool (it is told so in its system prompt). */
export const CLOSE_TOOL = '/close';

/** The speaker of an auto-resumed `core.conversationGate` (`mockAutoResume: true`) when it has no roster. */
export const MOCK_SPEAKER_ID = 'host:conformance-mock';

/** What the mock speaker of an auto-resumed `core.conversationGate` says, its one turn. */
export const MOCK_TURN_TEXT = 'openwop-conformance mock turn';

/** Whether `node` is a `core.conversationGate` the host resumes by itself (the conformance fixtures' `mockAutoResume`). */
export function isAutoResumedGate(node: WorkflowNode): boolean {
  return node.typeId === 'core.conversationGate' && node.config?.mockAutoResume === true;
}

/** One agent of an agent node, from its config (`agent.conversation`: the node itself). */
export interface AgentSpec {
  readonly agentId: string;
  readonly name?: string;
  readonly system_prompt?: string;
  /**
   * Scripted provider: the replies, in order. Past the end an `agent.conversation` agent closes the
   * conversation (reason `script-ended`); an `agent.dialogue` agent answers empty, which closes it too.
   */
  readonly script?: readonly string[];
  readonly provider?: string;
  readonly model?: string;
}

/** Work the engine owes a conversation after recording turns. */
export type FollowUp =
  | {
      readonly kind: 'reply';
      readonly runId: string;
      readonly nodeId: string;
      readonly interruptId: string;
      readonly conversationId: string;
      readonly speakerId: string;
      readonly afterTurnIndex: number;
    }
  | {
      readonly kind: 'close';
      readonly runId: string;
      readonly nodeId: string;
      readonly interruptId: string;
      readonly conversationId: string;
      readonly reason: string;
      readonly outcome: unknown;
      readonly afterTurnIndex: number;
    };

/** The agents of an agent node, in roster order. */
export function agentsOf(node: WorkflowNode): AgentSpec[] {
  const config = node.config ?? {};
  if (isAutoResumedGate(node)) {
    // One scripted speaker: the roster's first member (so the turn passes the roster), else the mock.
    const roster = Array.isArray(config.participants) ? (config.participants as { agentId?: unknown }[]) : [];
    const first = typeof roster[0]?.agentId === 'string' ? roster[0].agentId : MOCK_SPEAKER_ID;
    return [{ agentId: first, script: [MOCK_TURN_TEXT] }];
  }
  if (node.typeId === 'agent.conversation') {
    return [
      {
        ...(config as Partial<AgentSpec>),
        agentId: typeof config.agent_id === 'string' ? config.agent_id : 'agent',
      },
    ];
  }
  return Array.isArray(config.participants) ? (config.participants as AgentSpec[]) : [];
}

/**
 * The follow-ups of a decision: for each conversation whose latest turn these events recorded, what
 * its node's agents do next. `agent.conversation`: the agent answers every non-agent turn (a
 * scripted agent past the end of its script closes the conversation instead, `script-ended`).
 * `agent.dialogue` (free talk, no turn order, no automatic close): after an agent turn, close if it
 * called the close tool, said the sentinel phrase, was empty, or `ttl_ms` has passed since the open
 * (by the deciding command's clock); else another participant speaks. (`timeout_ms` is the
 * durable hard stop: it closes with `outcome: null` even when no agent answers.)
 * `agent.council`: every member answers the opening prompt once, in roster order, seeing the
 * answers before its own; then the council closes with the answers as outcome.
 */
export function followUpsOf(state: RunRecord, events: readonly RunEventDoc[], now: string): FollowUp[] {
  const touched = new Set<string>();
  for (const e of events) {
    if (e.type.startsWith('conversation.'))
      touched.add(String((e.payload as { conversationId?: unknown }).conversationId));
  }
  const out: FollowUp[] = [];
  for (const id of touched) {
    const view = state.conversations?.[id];
    if (!view || view.status !== 'open') continue;
    const node = state.workflow.nodes.find((n) => n.id === view.nodeId);
    if (!node) continue;
    const next = nextStep(node, view, now);
    if (next)
      out.push({
        ...next,
        runId: state.runId,
        nodeId: view.nodeId,
        interruptId: view.interruptId,
        conversationId: id,
        afterTurnIndex: view.nextTurnIndex - 1,
      });
  }
  return out;
}

type Step = { kind: 'reply'; speakerId: string } | { kind: 'close'; reason: string; outcome: unknown };

function nextStep(node: WorkflowNode, view: ConversationView, now: string): Step | undefined {
  const agents = agentsOf(node);
  const last = lastTurnOf(view);
  const config = node.config ?? {};
  switch (node.typeId) {
    case 'agent.conversation': {
      if (last.role === 'agent') return undefined;
      const agent = agents[0]!;
      // A scripted agent that said every line of its script has nothing left to say: instead of an
      // empty turn it ends the talk, and the node's output is its last line.
      if (
        Array.isArray(agent.script) &&
        (ownValue(view.agentTurns, agent.agentId) ?? 0) >= agent.script.length
      ) {
        return {
          kind: 'close',
          reason: 'script-ended',
          outcome: { reason: 'script-ended', closedBy: agent.agentId, atTurn: last.turnIndex },
        };
      }
      return { kind: 'reply', speakerId: agent.agentId };
    }
    case 'agent.dialogue': {
      if (agents.length === 0) return undefined;
      if (last.role !== 'agent') return { kind: 'reply', speakerId: agents[0]!.agentId };
      const text = contentText(last.content).trim();
      if (text === CLOSE_TOOL || text.endsWith(`\n${CLOSE_TOOL}`)) return close('agent-closed', last);
      if (typeof config.sentinel === 'string' && config.sentinel !== '' && text.includes(config.sentinel)) {
        return close('sentinel', last);
      }
      if (isEmptyReply(last.content)) return close('empty-reply', last);
      const ttl = config.ttl_ms;
      if (typeof ttl === 'number' && Date.parse(now) - Date.parse(view.openedAt) >= ttl)
        return close('ttl', last);
      const other = agents.find((a) => a.agentId !== speakerOf(last)) ?? agents[0]!;
      return { kind: 'reply', speakerId: other.agentId };
    }
    case 'agent.council': {
      const pending = agents.find((a) => (ownValue(view.agentTurns, a.agentId) ?? 0) === 0);
      if (pending) return { kind: 'reply', speakerId: pending.agentId };
      const answers: Record<string, unknown> = {};
      // Each member's latest answer: kept per speaker, so none falls out of the window in a large council.
      for (const t of [view.first, ...view.window]) if (t.role === 'agent') answers[speakerOf(t)] = t.content;
      Object.assign(answers, view.lastBySpeaker);
      return { kind: 'close', reason: 'council-complete', outcome: { answers } };
    }
    case 'core.conversationGate': {
      // Auto-resumed (conformance): exactly one exchange by the mock speaker, then the host closes.
      if (!isAutoResumedGate(node)) return undefined;
      if (last.role !== 'agent') return { kind: 'reply', speakerId: agents[0]!.agentId };
      return {
        kind: 'close',
        reason: 'mock-auto-resume',
        outcome: { reply: last.content, speakerId: speakerOf(last) },
      };
    }
    default:
      return undefined;
  }
}

function close(reason: string, last: { speakerId?: string; from: string; turnIndex: number }): Step {
  return {
    kind: 'close',
    reason,
    outcome: { reason, closedBy: last.speakerId ?? last.from, atTurn: last.turnIndex },
  };
}

/** One chat message for the provider port (`libs/llm` `ChatMessage`, kept structural here). */
export interface PromptMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
  readonly name?: string;
}

/** What the engine asks an agent: the windowed view as chat messages, and a scripted reply if it has one. */
export interface AgentPrompt {
  readonly agent: AgentSpec;
  readonly messages: PromptMessage[];
  /** The reply of a scripted agent (deterministic: its n-th turn gets `script[n]`, '' past the end). */
  readonly scripted?: string;
}

/**
 * The prompt of `speakerId` in `conversationId`: its system prompt, the context carried by
 * `continue_from`, turn 0, a one-line summary of the turns out of the window, then the window
 * (its own turns as `assistant`, everyone else's as `user`, named in multi-party talk).
 */
export function agentPrompt(
  state: RunRecord,
  conversationId: string,
  speakerId: string,
): AgentPrompt | undefined {
  const view = state.conversations?.[conversationId];
  const node = view && state.workflow.nodes.find((n) => n.id === view.nodeId);
  const agent = node && agentsOf(node).find((a) => a.agentId === speakerId);
  if (!view || !node || !agent) return undefined;
  const config = node.config ?? {};
  const multi = node.typeId !== 'agent.conversation';
  const messages: PromptMessage[] = [];
  const system =
    agent.system_prompt ?? (typeof config.system_prompt === 'string' ? config.system_prompt : undefined);
  const others = agentsOf(node)
    .filter((a) => a.agentId !== speakerId)
    .map((a) => a.name ?? a.agentId);
  const roleLine =
    node.typeId === 'agent.dialogue'
      ? `You are ${agent.name ?? agent.agentId}, talking with ${others.join(', ')}. Reply with ${CLOSE_TOOL} alone to end the conversation.`
      : node.typeId === 'agent.council'
        ? `You are ${agent.name ?? agent.agentId}, one member of a council with ${others.join(', ')}. Answer the question; you see the answers given before yours.`
        : undefined;
  const systemText = [system, roleLine].filter((x): x is string => !!x).join('\n');
  if (systemText) messages.push({ role: 'system', content: systemText });
  const carried = carriedContext(state, config.continue_from);
  if (carried) messages.push({ role: 'system', content: carried });
  const asMessage = (t: {
    role: string;
    content: unknown;
    speakerId?: string;
    from: string;
  }): PromptMessage => {
    const who = t.speakerId ?? t.from;
    const text = contentText(t.content);
    if (t.role === 'agent' && who === speakerId) return { role: 'assistant', content: text };
    if (t.role === 'system') return { role: 'system', content: text };
    return multi
      ? { role: 'user', content: `${who}: ${text}`, name: safeName(who) }
      : { role: 'user', content: text };
  };
  if (!(view.first.role === 'system' && isOpenedMarker(view.first.content)))
    messages.push(asMessage(view.first));
  const summary = olderSummary(view);
  if (summary) messages.push({ role: 'system', content: summary });
  for (const t of view.window) messages.push(asMessage(t));
  const n = ownValue(view.agentTurns, speakerId) ?? 0;
  const script =
    agent.script ??
    (Array.isArray(config.script) && node.typeId === 'agent.conversation'
      ? (config.script as string[])
      : undefined);
  return { agent, messages, ...(script ? { scripted: script[n] ?? '' } : {}) };
}

function isOpenedMarker(content: unknown): boolean {
  return (
    typeof content === 'object' && content !== null && (content as { reason?: unknown }).reason === 'opened'
  );
}

function safeName(who: string): string {
  return who.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'speaker';
}

/** The context an earlier conversation step left in its output (`continue_from`), as one system message. */
function carriedContext(state: RunRecord, from: unknown): string | undefined {
  if (typeof from !== 'string') return undefined;
  const context = (
    ownValue(state.nodeOutputs, from) as
      | { context?: { summary?: string; turns?: { from: string; speakerId?: string; content: unknown }[] } }
      | undefined
  )?.context;
  if (!context) return undefined;
  const lines = (context.turns ?? []).map((t) => `${t.speakerId ?? t.from}: ${contentText(t.content)}`);
  return [`Earlier conversation (${from}):`, ...(context.summary ? [context.summary] : []), ...lines].join(
    '\n',
  );
}
