import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { instantAfter } from '@openwop/kernel';
import {
  initialConversationState,
  type ConversationState,
  type ConversationTurn,
} from '@openwop/conversation-domain';

/** Turns kept verbatim in the row: the closure's tail (what `continue_from` carries). */
const TAIL = 10;

type Held = Exclude<ConversationState, { status: 'not-open' }>;

/** The row's bounded state: the aggregate without its turn list, plus the latest turns. */
type StoredConversation = Omit<Held, 'turns' | 'seenMessageIds'> & {
  readonly tail: readonly ConversationTurn[];
  readonly lastAgentTurn?: ConversationTurn;
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

/**
 * The `interrupt_conversations` / `interrupt_conversation_turns` tables (ADR 0011). A turn is one
 * row; the aggregate row holds bounded state, so the 10,000th turn costs what the first did. A load
 * hydrates the aggregate with only the turns a decision can look at: the ones a command's messageIds
 * name (retry and collision checks), the host's system ids at the next index, and the tail.
 */
@Injectable()
export class ConversationRepository {
  async lockByInterrupt(
    manager: EntityManager,
    interruptId: string,
    messageIds: readonly string[],
  ): Promise<ConversationState> {
    const rows = await manager.query<{ state: StoredConversation }[]>(
      'SELECT state FROM interrupt_conversations WHERE interrupt_id = $1 FOR UPDATE',
      [interruptId],
    );
    const stored = rows[0]?.state;
    if (!stored) return initialConversationState();
    // The host's system id at the next index and the suffixes it falls back to (ADR 0009), by exact id: an index lookup.
    const system = `${stored.conversationId}:${stored.nextTurnIndex}:system`;
    const ids = [...messageIds, system, ...[1, 2, 3, 4].map((n) => `${system}:${n}`)];
    const named = await manager.query<{ turn: ConversationTurn }[]>(
      'SELECT turn FROM interrupt_conversation_turns WHERE conversation_id = $1 AND message_id = ANY($2::text[])',
      [stored.conversationId, ids],
    );
    return hydrate(stored, [...stored.tail, ...named.map((r) => r.turn)]);
  }

  /**
   * Saves the aggregate after new turns (those at or past `sinceTurnIndex`), decided at `now`. An open
   * conversation with a `maxSilenceMs` is due its silence audit `maxSilenceMs` after its latest turn.
   */
  async save(
    manager: EntityManager,
    home: ConversationHome,
    state: Held,
    sinceTurnIndex: number,
    now: string,
  ): Promise<void> {
    const fresh = state.turns.filter(
      (t): t is ConversationTurn => t !== undefined && t.turnIndex >= sinceTurnIndex,
    );
    for (const t of fresh) {
      await manager.query(
        `INSERT INTO interrupt_conversation_turns (conversation_id, turn_index, message_id, turn)
         VALUES ($1, $2, $3, $4::jsonb)`,
        [state.conversationId, t.turnIndex, t.messageId, JSON.stringify(t)],
      );
    }
    const stored = compact(state);
    const maxSilenceMs = (state as { maxSilenceMs?: number }).maxSilenceMs;
    const silenceDueAt =
      state.status === 'open' && maxSilenceMs ? instantAfter(Date.parse(now), maxSilenceMs) : null;
    await manager.query(
      `INSERT INTO interrupt_conversations (conversation_id, interrupt_id, run_id, node_id, tenant, status, state, silence_due_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::timestamptz)
       ON CONFLICT (conversation_id) DO UPDATE SET status = EXCLUDED.status, state = EXCLUDED.state,
         silence_due_at = EXCLUDED.silence_due_at, updated_at = now()`,
      [
        state.conversationId,
        home.interruptId,
        home.runId,
        home.nodeId,
        home.tenant,
        state.status,
        JSON.stringify(stored),
        silenceDueAt,
      ],
    );
  }

  /**
   * Claims up to `limit` open conversations whose silence is due and that no other instance holds,
   * and disarms them (the next turn re-arms): one audit per silence.
   */
  async claimSilent(manager: EntityManager, now: string, limit: number): Promise<SilentConversation[]> {
    const rows = await manager.query<
      { home: ConversationHome; state: StoredConversation & { maxSilenceMs?: number } }[]
    >(
      `SELECT json_build_object('interruptId', interrupt_id, 'runId', run_id, 'nodeId', node_id, 'tenant', tenant) AS home, state
       FROM interrupt_conversations WHERE status = 'open' AND silence_due_at <= $1::timestamptz
       ORDER BY silence_due_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    if (rows.length > 0) {
      await manager.query(
        'UPDATE interrupt_conversations SET silence_due_at = NULL WHERE conversation_id = ANY($1::text[])',
        [rows.map((r) => r.state.conversationId)],
      );
    }
    return rows.map((r) => ({
      home: r.home,
      conversationId: r.state.conversationId,
      lastTurnIndex: r.state.nextTurnIndex - 1,
      maxSilenceMs: r.state.maxSilenceMs ?? 0,
    }));
  }
}

function hydrate(stored: StoredConversation, known: readonly ConversationTurn[]): ConversationState {
  // lastAgentTurn rides along (evolve spreads the state), so compact() keeps it when the tail has no agent turn.
  const { tail: _tail, ...rest } = stored;
  const turns: ConversationTurn[] = new Array<ConversationTurn>(stored.nextTurnIndex);
  const seen = new Map<string, number>();
  for (const t of known) {
    turns[t.turnIndex] = t;
    seen.set(t.messageId, t.turnIndex);
  }
  return { ...rest, turns, seenMessageIds: seen } as ConversationState;
}

function compact(state: Held): StoredConversation {
  const { turns, seenMessageIds: _seen, ...rest } = state as Held & { lastAgentTurn?: ConversationTurn };
  const known = turns.filter((t): t is ConversationTurn => t !== undefined);
  const tail = known.slice(-TAIL);
  const lastAgent = [...known].reverse().find((t) => t.role === 'agent');
  const lastAgentTurn = lastAgent ?? rest.lastAgentTurn;
  return { ...rest, tail, ...(lastAgentTurn ? { lastAgentTurn } : {}) };
}

/** The digest of a conversation for its closure: count, tail, last agent turn, a line on the rest. */
export function digestOf(state: Held): ConversationDigest {
  const stored = compact(state);
  const older = Math.max(0, state.nextTurnIndex - stored.tail.length);
  return {
    turnCount: state.nextTurnIndex,
    tail: stored.tail,
    ...(stored.lastAgentTurn ? { lastAgentTurn: stored.lastAgentTurn } : {}),
    ...(older > 0 ? { summary: `${older} earlier turn${older === 1 ? ' is' : 's are'} not shown.` } : {}),
  };
}
