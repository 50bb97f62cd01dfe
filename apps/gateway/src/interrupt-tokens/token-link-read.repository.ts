import { Inject, Injectable } from '@nestjs/common';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';

/** A conversation as the signed-link page shows it. */
export interface LinkConversation {
  readonly conversationId: string;
  readonly nodeId: string;
  readonly status: 'open' | 'closed';
  readonly turnCount: number;
  readonly openedAt: string;
  readonly closedAt?: string;
}

/** How one interrupt ended, from its `interrupt.resolved` event. */
export interface InterruptAnswer {
  /** `resolved`, `timeout`, or for an approval `approved`/`rejected`… as the event says. */
  readonly outcome?: string;
  /** `timeout` when nobody answered in time. */
  readonly reason?: string;
  readonly resolvedAt?: string;
  /** An approval's action (`accept`, `reject`, `edit-accept`, …). */
  readonly action?: string;
}

/**
 * The reads behind the token-authorized routes of the signed-link page. They are not bound to a
 * tenant: the caller holds a token the token service verified, and every read is bound to the run
 * and the interrupt (or conversation) that token names. They return states, never resume values,
 * principals or run outputs.
 */
@Injectable()
export class TokenLinkReadRepository {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  /** The conversation `conversationId` of run `runId`, if the projection holds it. */
  async conversation(runId: string, conversationId: string): Promise<LinkConversation | undefined> {
    const rows = await this.ds.query<
      {
        conversation_id: string;
        node_id: string;
        status: 'open' | 'closed';
        turn_count: number;
        opened_at: Date;
        closed_at: Date | null;
      }[]
    >(
      `SELECT conversation_id, node_id, status, turn_count, opened_at, closed_at
       FROM conversations WHERE conversation_id = $1 AND run_id = $2`,
      [conversationId, runId],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      conversationId: r.conversation_id,
      nodeId: r.node_id,
      status: r.status,
      turnCount: r.turn_count,
      openedAt: new Date(r.opened_at).toISOString(),
      ...(r.closed_at ? { closedAt: new Date(r.closed_at).toISOString() } : {}),
    };
  }

  /** The interrupt the run's snapshot shows pending, if any (no tenant check: the caller holds a verified token). */
  async pendingInterruptId(runId: string): Promise<string | undefined> {
    const rows = await this.ds.query<{ interrupt_id: string | null }[]>(
      `SELECT snapshot->'interrupt'->>'interruptId' AS interrupt_id FROM runs WHERE run_id = $1`,
      [runId],
    );
    return rows[0]?.interrupt_id ?? undefined;
  }

  /** The run's status in its snapshot, if the run is known. */
  async runStatus(runId: string): Promise<string | undefined> {
    const rows = await this.ds.query<{ status: string }[]>('SELECT status FROM runs WHERE run_id = $1', [
      runId,
    ]);
    return rows[0]?.status;
  }

  /** How `interruptId` of `runId` was answered, if its `interrupt.resolved` event is in the log. */
  async answer(runId: string, interruptId: string): Promise<InterruptAnswer | undefined> {
    const rows = await this.ds.query<
      { outcome: string | null; reason: string | null; resolved_at: string | null; action: string | null }[]
    >(
      `SELECT doc->'payload'->>'outcome' AS outcome, doc->'payload'->>'reason' AS reason,
              doc->'payload'->>'resolvedAt' AS resolved_at, doc->'payload'->>'action' AS action
       FROM run_events
       WHERE run_id = $1 AND type = 'interrupt.resolved' AND doc->'payload'->>'interruptId' = $2
       ORDER BY sequence LIMIT 1`,
      [runId, interruptId],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      ...(r.outcome !== null ? { outcome: r.outcome } : {}),
      ...(r.reason !== null ? { reason: r.reason } : {}),
      ...(r.resolved_at !== null ? { resolvedAt: r.resolved_at } : {}),
      ...(r.action !== null ? { action: r.action } : {}),
    };
  }
}
