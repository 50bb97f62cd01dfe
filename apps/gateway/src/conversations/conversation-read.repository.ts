import { Inject, Injectable } from '@nestjs/common';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import type { RecordedConversation, RecordedTurn } from '@openwop/contracts';
import { ApiError } from '../common/api.error';

/** One conversation of a run, as `GET /v1/runs/{runId}/conversations` lists it. */
export interface ConversationSummary {
  readonly conversationId: string;
  readonly nodeId: string;
  readonly status: 'open' | 'closed';
  readonly turnCount: number;
  readonly openedAt: string;
  readonly closedAt?: string;
  /** RFC 0101 roster, when `conversation.opened` declared one. */
  readonly participants?: readonly unknown[];
  /** The `conversation.closed` outcome (`null` on timeout), once closed. */
  readonly outcome?: unknown;
}

/** A recorded turn (`conversation-turn.schema.json`). */
export interface ConversationTurnView {
  readonly messageId: string;
  readonly from: string;
  readonly content: unknown;
  readonly ts: number;
  readonly role: string;
  readonly turnIndex: number;
  readonly speakerId?: string;
  readonly to?: string;
  readonly groupId?: string;
  readonly agent?: unknown;
}

interface ConversationRow {
  conversation_id: string;
  node_id: string;
  status: 'open' | 'closed';
  participants: unknown[] | null;
  turn_count: number;
  opened_at: Date;
  closed_at: Date | null;
  outcome: unknown;
}

interface TurnRow {
  turn_index: number;
  message_id: string;
  role: string;
  from_id: string;
  speaker_id: string | null;
  to_id: string | null;
  group_id: string | null;
  agent: unknown;
  content: unknown;
  ts: string;
}

const CONVERSATION_COLUMNS =
  'conversation_id, node_id, status, participants, turn_count, opened_at, closed_at, outcome';

/**
 * Reads the projector's conversation read models (`conversations`, `conversation_turns`). Every
 * lookup is bound to the run and the caller's tenant in the same query, so another tenant's
 * conversation reads as absent.
 */
@Injectable()
export class ConversationReadRepository {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  /** The run's conversations, in the order they were opened. */
  async listForRun(runId: string, tenant: string): Promise<ConversationSummary[]> {
    const rows = await this.ds.query<ConversationRow[]>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE run_id = $1 AND tenant = $2 ORDER BY opened_at, conversation_id`,
      [runId, tenant],
    );
    return rows.map(summaryOf);
  }

  /**
   * One conversation of the run.
   *
   * @throws {@link ApiError} `not_found` when the run has no such conversation for this tenant.
   */
  async require(runId: string, conversationId: string, tenant: string): Promise<ConversationSummary> {
    const rows = await this.ds.query<ConversationRow[]>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE conversation_id = $1 AND run_id = $2 AND tenant = $3`,
      [conversationId, runId, tenant],
    );
    if (!rows[0]) throw ApiError.notFound(`Conversation ${conversationId} not found in run ${runId}.`);
    return summaryOf(rows[0]);
  }

  /**
   * Every recorded turn of every conversation of the run (what the `messages` channel folds), grouped
   * by conversation. Bound to the caller's tenant like every lookup here.
   */
  async recordedForRun(runId: string, tenant: string): Promise<RecordedConversation[]> {
    const rows = await this.ds.query<(TurnRow & { conversation_id: string; node_id: string })[]>(
      `SELECT c.conversation_id, c.node_id, t.turn_index, t.message_id, t.role, t.from_id, t.speaker_id, t.to_id,
              t.group_id, t.agent, t.content, t.ts::text AS ts
       FROM conversations c JOIN conversation_turns t ON t.conversation_id = c.conversation_id
       WHERE c.run_id = $1 AND c.tenant = $2 ORDER BY c.conversation_id, t.turn_index`,
      [runId, tenant],
    );
    const byId = new Map<string, { conversationId: string; nodeId: string; turns: RecordedTurn[] }>();
    for (const r of rows) {
      let c = byId.get(r.conversation_id);
      if (!c)
        byId.set(
          r.conversation_id,
          (c = { conversationId: r.conversation_id, nodeId: r.node_id, turns: [] }),
        );
      c.turns.push(turnOf(r) as RecordedTurn);
    }
    return [...byId.values()];
  }

  /** Up to `limit` turns with `turnIndex > after`, in turn order. */
  async turnsAfter(conversationId: string, after: number, limit: number): Promise<ConversationTurnView[]> {
    const rows = await this.ds.query<TurnRow[]>(
      `SELECT turn_index, message_id, role, from_id, speaker_id, to_id, group_id, agent, content, ts::text AS ts
       FROM conversation_turns WHERE conversation_id = $1 AND turn_index > $2 ORDER BY turn_index LIMIT $3`,
      [conversationId, after, limit],
    );
    return rows.map(turnOf);
  }
}

function summaryOf(r: ConversationRow): ConversationSummary {
  return {
    conversationId: r.conversation_id,
    nodeId: r.node_id,
    status: r.status,
    turnCount: r.turn_count,
    openedAt: new Date(r.opened_at).toISOString(),
    ...(r.closed_at ? { closedAt: new Date(r.closed_at).toISOString(), outcome: r.outcome } : {}),
    ...(r.participants ? { participants: r.participants } : {}),
  };
}

function turnOf(r: TurnRow): ConversationTurnView {
  return {
    messageId: r.message_id,
    from: r.from_id,
    content: r.content,
    ts: Number(r.ts),
    role: r.role,
    turnIndex: r.turn_index,
    ...(r.speaker_id !== null ? { speakerId: r.speaker_id } : {}),
    ...(r.to_id !== null ? { to: r.to_id } : {}),
    ...(r.group_id !== null ? { groupId: r.group_id } : {}),
    ...(r.agent !== null ? { agent: r.agent } : {}),
  };
}
