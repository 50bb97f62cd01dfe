import { msOf } from './conversation.ids';
import type { ConversationState } from './conversation.state';

/** Why a free talk between agents ends. */
export type FreeTalkCloseReason = 'agent-closed' | 'empty-reply' | 'ttl';

/** The latest agent reply, before the host records it. */
export interface FreeTalkReply {
  /** The roster instance id of the agent that replied. */
  readonly speakerId: string;
  readonly content: unknown;
  /** The agent asked to end the talk; its reply is the closing turn. */
  readonly closes?: boolean;
}

export interface FreeTalkLimits {
  /** The talk's time to live in ms, measured from `conversation.opened`. */
  readonly ttl: number;
  /** ISO timestamp from the handler's clock. */
  readonly now: string;
}

export type FreeTalkStep =
  /** Ask one of `next` (roster order, every member but the last speaker) for the next reply. */
  | { readonly action: 'continue'; readonly next: readonly string[] }
  | { readonly action: 'close'; readonly reason: FreeTalkCloseReason }
  /** The conversation is not open: nothing to drive. */
  | { readonly action: 'ended' };

/**
 * Drives agents talking freely: no turn order, each reply answers the transcript, until an agent
 * closes, a reply is empty, or the TTL runs out, checked in that order. Call it with each reply
 * before recording it: on `continue` record the reply (`ExchangeTurn`) and ask a `next` member;
 * on `agent-closed` close with the reply as `finalTurn`; on `empty-reply` close without it (the
 * host writes a `system` turn); on `ttl` record the reply, then close. `lastReply` is absent
 * before the first reply. `next` is empty when the conversation declares no roster.
 */
export function nextFreeTalkStep(
  state: ConversationState,
  lastReply: FreeTalkReply | undefined,
  { ttl, now }: FreeTalkLimits,
): FreeTalkStep {
  if (state.status !== 'open') return { action: 'ended' };
  if (lastReply?.closes) return { action: 'close', reason: 'agent-closed' };
  if (lastReply && isEmptyReply(lastReply.content)) return { action: 'close', reason: 'empty-reply' };
  if (msOf(now) - msOf(state.openedAt) >= ttl) return { action: 'close', reason: 'ttl' };
  const last = lastReply?.speakerId ?? [...state.turns].reverse().find((t) => t.role === 'agent')?.speakerId;
  return {
    action: 'continue',
    next: (state.participants ?? []).map((p) => p.agentId).filter((id) => id !== last),
  };
}

/** No words: null, a blank string, an empty array or object. `0` and `false` are answers. */
export function isEmptyReply(content: unknown): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === 'string') return content.trim() === '';
  if (Array.isArray(content)) return content.length === 0;
  if (typeof content === 'object') return Object.keys(content).length === 0;
  return false;
}
