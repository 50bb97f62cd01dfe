import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  conversationDocument,
  conversationFromDocument,
  conversationOfStored,
  initialConversationState,
  silenceDueAt,
  silentConversationOf,
  storedConversationOf,
  turnIdsToLoad,
  turnsSince,
  type ConversationHome,
  type ConversationState,
  type ConversationTurn,
  type HeldConversation,
  type SilentConversation,
} from '@openwop/conversation-domain';
import { INTERRUPT_DUE_TIMES } from './interrupt-due-times';

/**
 * The `interrupt_conversations` / `interrupt_conversation_turns` tables (ADR 0011). A turn is one
 * row; the aggregate row holds the bounded state ({@link storedConversationOf}), so the 10,000th turn
 * costs what the first did. A load hydrates the aggregate with only the turns a decision can look
 * at: the tail and those {@link turnIdsToLoad} names (by exact id: an index lookup).
 */
@Injectable()
export class ConversationRepository {
  async lockByInterrupt(
    manager: EntityManager,
    interruptId: string,
    messageIds: readonly string[],
  ): Promise<ConversationState> {
    const rows = await manager.query<{ state: object }[]>(
      'SELECT state FROM interrupt_conversations WHERE interrupt_id = $1 FOR UPDATE',
      [interruptId],
    );
    if (!rows[0]) return initialConversationState();
    const stored = conversationFromDocument(rows[0].state);
    const named = await manager.query<{ turn: ConversationTurn }[]>(
      'SELECT turn FROM interrupt_conversation_turns WHERE conversation_id = $1 AND message_id = ANY($2::text[])',
      [stored.conversationId, turnIdsToLoad(stored, messageIds)],
    );
    return conversationOfStored(stored, [...stored.tail, ...named.map((r) => r.turn)]);
  }

  /**
   * Saves the aggregate after new turns (those at or past `sinceTurnIndex`), decided at `now`, with
   * when its silence audit is due ({@link silenceDueAt}).
   */
  async save(
    manager: EntityManager,
    home: ConversationHome,
    state: HeldConversation,
    sinceTurnIndex: number,
    now: string,
  ): Promise<void> {
    for (const t of turnsSince(state, sinceTurnIndex)) {
      await manager.query(
        `INSERT INTO interrupt_conversation_turns (conversation_id, turn_index, message_id, turn)
         VALUES ($1, $2, $3, $4::jsonb)`,
        [state.conversationId, t.turnIndex, t.messageId, JSON.stringify(t)],
      );
    }
    const silenceDue = silenceDueAt(state, now);
    INTERRUPT_DUE_TIMES.wrote(manager, [silenceDue]);
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
        JSON.stringify(conversationDocument(storedConversationOf(state))),
        silenceDue,
      ],
    );
  }

  /**
   * Claims up to `limit` open conversations whose silence is due and that no other instance holds,
   * and disarms them (the next turn re-arms): one audit per silence.
   */
  async claimSilent(manager: EntityManager, now: string, limit: number): Promise<SilentConversation[]> {
    const raw = await manager.query<{ home: ConversationHome; state: object }[]>(
      `SELECT json_build_object('interruptId', interrupt_id, 'runId', run_id, 'nodeId', node_id, 'tenant', tenant) AS home, state
       FROM interrupt_conversations WHERE status = 'open' AND silence_due_at <= $1::timestamptz
       ORDER BY silence_due_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    const rows = raw.map((r) => ({ home: r.home, state: conversationFromDocument(r.state) }));
    if (rows.length > 0) {
      await manager.query(
        'UPDATE interrupt_conversations SET silence_due_at = NULL WHERE conversation_id = ANY($1::text[])',
        [rows.map((r) => r.state.conversationId)],
      );
    }
    return rows.map((r) => silentConversationOf(r.home, r.state));
  }
}
