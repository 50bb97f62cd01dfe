import { Inject, Injectable } from '@nestjs/common';
import { upcastRunEvent, type RunEventDoc } from '@openwop/contracts';
import { DATA_SOURCE } from '@openwop/platform-nest';
import { tokenStateOf, type InterruptTokenState, type KeyRing } from '@openwop/token-domain';
import type { DataSource } from 'typeorm';
import type { TokenSettings } from '../key-ring/token-settings';
import { KEY_RING, TOKEN_SETTINGS } from '../token.di-tokens';

/**
 * The events a token of one interrupt depends on: its run's start (the owner and the major it was
 * created under, `payload` cut down to them, so a run's inputs are not read) and end, and the
 * interrupt's own request and resolve; in order.
 */
const TOKEN_EVENTS_SQL = `SELECT CASE WHEN type = 'run.started'
         THEN jsonb_set(doc, '{payload}', jsonb_strip_nulls(jsonb_build_object(
           'owner', doc->'payload'->'owner', 'protocolMajor', doc->'payload'->'protocolMajor')))
         ELSE doc END AS doc
  FROM run_events
  WHERE run_id = $1
    AND (type IN ('run.started', 'run.completed', 'run.failed', 'run.cancelled')
      OR (type IN ('interrupt.requested', 'interrupt.resolved') AND doc->'payload'->>'interruptId' = $2))
  ORDER BY sequence`;

/**
 * An interrupt's tokens and whether they still hold, read on demand from the projector's per-run
 * event store (`run_events`) and folded by the domain's {@link tokenStateOf} (ADR 0007, revised):
 * the token service keeps no table and follows no topic. One indexed statement per call.
 */
@Injectable()
export class TokenStateRepository {
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(KEY_RING) private readonly ring: KeyRing,
    @Inject(TOKEN_SETTINGS) private readonly settings: TokenSettings,
  ) {}

  /** The tokens of `interruptId` of run `runId` as its events leave them; `undefined` when never requested. */
  async find(runId: string, interruptId: string): Promise<InterruptTokenState | undefined> {
    const rows = await this.ds.query<{ doc: RunEventDoc }[]>(TOKEN_EVENTS_SQL, [runId, interruptId]);
    return tokenStateOf(
      rows.map((r) => upcastRunEvent(r.doc)),
      interruptId,
      { ring: this.ring, defaultTtlMs: this.settings.defaultTtlMs },
    );
  }
}
