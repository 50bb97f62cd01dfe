import type { RecordConversationCommand, ResolveInterruptResult } from '@openwop/contracts';
import { instantAfter } from '@openwop/kernel';
import type { ConversationEvent } from './conversation.events';
import type { ClosedConversation, ConversationState } from './conversation.state';
import type { ConversationTurn } from './conversation.types';

/*
 * How a conversation interrupt is coordinated with its interrupt and the run log (RFC 0005, ADR 0011):
 * which resolves reach the conversation, what its bounded stored form keeps, what the node resumes
 * with on close, and which `run.converse` records go to the engine. Pure: the interrupt service only
 * loads and saves what these functions decide.
 */

/** Turns kept verbatim in the stored state: the closure's tail (what `continue_from` carries). */
export const CONVERSATION_TAIL = 10;

/** Suffixes (`:1`..`:4`) a host-emitted turn's messageId falls back to when its id is taken (ADR 0009). */
export const SYSTEM_ID_FALLBACKS = 4;

/** The principal of the `run.converse` records the interrupt service sends. */
export const CONVERSATION_PRINCIPAL = 'interrupt-service';

/** An opened conversation, open or closed. */
export type HeldConversation = Exclude<ConversationState, { status: 'not-open' }>;

/**
 * The bounded stored state: the aggregate without its turn list and dedup index, plus the latest
 * {@link CONVERSATION_TAIL} turns and the last agent turn. `maxSilenceMs` rides along when set.
 */
export type StoredConversation = Omit<HeldConversation, 'turns' | 'seenMessageIds'> & {
  readonly tail: readonly ConversationTurn[];
  readonly lastAgentTurn?: ConversationTurn;
  readonly maxSilenceMs?: number;
};

/** Where a conversation lives: its interrupt, run, node and tenant. */
export interface ConversationHome {
  readonly interruptId: string;
  readonly runId: string;
  readonly nodeId: string;
  readonly tenant: string;
}

/** An open conversation nobody spoke in for its `maxSilenceMs`. */
export interface SilentConversation {
  readonly home: ConversationHome;
  readonly conversationId: string;
  readonly lastTurnIndex: number;
  readonly maxSilenceMs: number;
}

/** What a closed conversation resumes its node with, beyond the outcome. */
export interface ConversationDigest {
  readonly turnCount: number;
  readonly tail: readonly ConversationTurn[];
  readonly lastAgentTurn?: ConversationTurn;
  readonly summary?: string;
}

/** The command that caused a record: its id becomes the record's causation, its correlation is kept. */
export interface ConversationCause {
  readonly id: string;
  readonly correlationId: string;
}

/** What a conversation resolve is addressed to, and who sends it. */
export interface ConversationTarget {
  readonly runId: string;
  readonly nodeId: string;
  readonly tenant: string;
}

/** An interrupt as the addressing check sees it: none, or one with a home and a status. */
export type AddressableInterrupt =
  | { readonly status: 'none' }
  | {
      readonly status: string;
      readonly interrupt: { readonly runId: string; readonly nodeId: string; readonly tenant: string };
    };

/**
 * Whether a conversation resolve reaches the conversation: the interrupt exists, is the one at the
 * target's run and node, belongs to the caller's tenant, and was not cancelled with its run. When
 * not, the interrupt's own refusal answers (not found, or cancelled).
 */
export function conversationAddressed(interrupt: AddressableInterrupt, target: ConversationTarget): boolean {
  if (!('interrupt' in interrupt) || interrupt.status === 'cancelled') return false;
  const i = interrupt.interrupt;
  return i.runId === target.runId && i.nodeId === target.nodeId && i.tenant === target.tenant;
}

/** The `maxSilenceMs` an opening carries (from the engine's `conversation.opened`), to ride on the state. */
export function silenceOfOpening(opened: Readonly<Record<string, unknown>>): {
  readonly maxSilenceMs?: number;
} {
  return typeof opened.maxSilenceMs === 'number' ? { maxSilenceMs: opened.maxSilenceMs } : {};
}

/**
 * The messageIds a decision can look at beyond the tail: the ones a command names (retry and
 * collision checks), the host's system id at the next index and its {@link SYSTEM_ID_FALLBACKS}.
 */
export function turnIdsToLoad(
  stored: Pick<StoredConversation, 'conversationId' | 'nextTurnIndex'>,
  messageIds: readonly string[],
): string[] {
  const system = `${stored.conversationId}:${stored.nextTurnIndex}:system`;
  const fallbacks = Array.from({ length: SYSTEM_ID_FALLBACKS }, (_, n) => `${system}:${n + 1}`);
  return [...messageIds, system, ...fallbacks];
}

/** The bounded stored form of a conversation (see {@link StoredConversation}). */
export function storedConversationOf(state: HeldConversation): StoredConversation {
  const {
    turns,
    seenMessageIds: _seen,
    ...rest
  } = state as HeldConversation & {
    lastAgentTurn?: ConversationTurn;
  };
  const known = turns.filter((t): t is ConversationTurn => t !== undefined);
  const tail = known.slice(-CONVERSATION_TAIL);
  const lastAgent = [...known].reverse().find((t) => t.role === 'agent');
  // lastAgentTurn rides along (evolve spreads the state), so it is kept when the tail has no agent turn.
  const lastAgentTurn = lastAgent ?? rest.lastAgentTurn;
  return { ...rest, tail, ...(lastAgentTurn ? { lastAgentTurn } : {}) };
}

/**
 * The aggregate from its stored form and the turns loaded with it (the tail and those named by
 * {@link turnIdsToLoad}); turns not loaded are holes a decision never looks at.
 */
export function conversationOfStored(
  stored: StoredConversation,
  known: readonly ConversationTurn[],
): ConversationState {
  const { tail: _tail, ...rest } = stored;
  const turns: ConversationTurn[] = new Array<ConversationTurn>(stored.nextTurnIndex);
  const seen = new Map<string, number>();
  for (const t of known) {
    turns[t.turnIndex] = t;
    seen.set(t.messageId, t.turnIndex);
  }
  return { ...rest, turns, seenMessageIds: seen } as ConversationState;
}

/** The turns of `state` recorded at or past `sinceTurnIndex` (the ones a save must insert). */
export function turnsSince(state: HeldConversation, sinceTurnIndex: number): ConversationTurn[] {
  return state.turns.filter((t): t is ConversationTurn => t !== undefined && t.turnIndex >= sinceTurnIndex);
}

/**
 * When an open conversation with a `maxSilenceMs` is due its silence audit: that long after `now`
 * (its latest turn). `null` for a closed one or one without a `maxSilenceMs`.
 */
export function silenceDueAt(state: HeldConversation, now: string): string | null {
  const maxSilenceMs = (state as { maxSilenceMs?: number }).maxSilenceMs;
  return state.status === 'open' && maxSilenceMs ? instantAfter(Date.parse(now), maxSilenceMs) : null;
}

/** A claimed silent conversation from its home and stored state. */
export function silentConversationOf(home: ConversationHome, stored: StoredConversation): SilentConversation {
  return {
    home,
    conversationId: stored.conversationId,
    lastTurnIndex: stored.nextTurnIndex - 1,
    maxSilenceMs: stored.maxSilenceMs ?? 0,
  };
}

/** The line that stands in for the `older` turns a closure's tail leaves out, if any. */
export function earlierTurnsSummary(older: number): string | undefined {
  return older > 0 ? `${older} earlier turn${older === 1 ? ' is' : 's are'} not shown.` : undefined;
}

/** The digest of a conversation for its closure: count, tail, last agent turn, a line on the rest. */
export function digestOf(state: HeldConversation): ConversationDigest {
  const stored = storedConversationOf(state);
  const summary = earlierTurnsSummary(Math.max(0, state.nextTurnIndex - stored.tail.length));
  return {
    turnCount: state.nextTurnIndex,
    tail: stored.tail,
    ...(stored.lastAgentTurn ? { lastAgentTurn: stored.lastAgentTurn } : {}),
    ...(summary ? { summary } : {}),
  };
}

/** The node's resume value on close (recorded in `interrupt.resolved`: replay reads it back). */
export function closureOf(state: ClosedConversation): Record<string, unknown> {
  const digest = digestOf(state);
  return {
    operation: 'close',
    conversationId: state.conversationId,
    outcome: state.outcome ?? null,
    reason: state.reason,
    turnCount: digest.turnCount,
    ...(digest.lastAgentTurn ? { lastAgentTurn: digest.lastAgentTurn } : {}),
    tail: digest.tail,
    ...(digest.summary ? { summary: digest.summary } : {}),
  };
}

/** The turn the last of `events` recorded (an exchanged turn, or a close's final turn), if any. */
export function lastRecordedTurn(events: readonly ConversationEvent[]): ConversationTurn | undefined {
  const last = events[events.length - 1];
  if (last?.type === 'conversation.exchanged') return last.data.payload.turn;
  if (last?.type === 'conversation.closed') return last.data.payload.finalTurn;
  return undefined;
}

/**
 * The answer to a conversation resolve: `resolved` once the conversation is closed, `accepted` while
 * it goes on, with the turn recorded (or first recorded, for a retried messageId) when there is one.
 */
export function conversationResolveResult(
  address: { readonly runId: string; readonly nodeId: string; readonly interruptId: string },
  closed: boolean,
  conversationId: string,
  turn: ConversationTurn | undefined,
): ResolveInterruptResult {
  return {
    ...address,
    status: closed ? 'resolved' : 'accepted',
    conversationId,
    ...(turn ? { turnIndex: turn.turnIndex, messageId: turn.messageId } : {}),
  };
}

/**
 * The `run.converse` that records a decided conversation event in the run log (the engine writes
 * it). Its id derives from the event's, so a re-decided event dedupes downstream.
 * @throws Error for `conversation.opened`: the engine writes that one itself.
 */
export function converseCommand(
  event: ConversationEvent,
  home: ConversationHome,
  now: string,
  cause: ConversationCause,
): RecordConversationCommand {
  if (event.type === 'conversation.opened') throw new Error('the engine writes conversation.opened itself');
  const { interruptId, runId, nodeId, tenant } = home;
  return {
    id: `converse:${event.data.eventId}`,
    type: 'run.converse',
    occurredAt: now,
    correlationId: cause.correlationId,
    causationId: cause.id,
    actor: { tenant, principal: CONVERSATION_PRINCIPAL },
    data: {
      runId,
      nodeId,
      interruptId,
      type: event.type,
      payload: event.data.payload as unknown as Record<string, unknown>,
      ...(event.type === 'conversation.closed' ? { reason: event.data.reason } : {}),
    },
  };
}

/**
 * The silence audit of a conversation nobody spoke in for its `maxSilenceMs`: a `run.converse` of
 * type `conversation.silence`, which the engine records as a `log.appended` warning. One per
 * silence: the id names the last turn, so a re-claimed audit dedupes; the next turn re-arms it.
 */
export function silenceAuditCommand(silent: SilentConversation, now: string): RecordConversationCommand {
  const { home, conversationId, lastTurnIndex, maxSilenceMs } = silent;
  return {
    id: `silence:${conversationId}:${lastTurnIndex}`,
    type: 'run.converse',
    occurredAt: now,
    correlationId: home.runId,
    causationId: `silence:${conversationId}`,
    actor: { tenant: home.tenant, principal: CONVERSATION_PRINCIPAL },
    data: {
      runId: home.runId,
      nodeId: home.nodeId,
      interruptId: home.interruptId,
      type: 'conversation.silence',
      payload: { conversationId, silentSinceTurnIndex: lastTurnIndex, maxSilenceMs, detectedAt: now },
    },
  };
}
