import { Inject, Injectable } from '@nestjs/common';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';

/** The signed tokens of one pending interrupt, as the token service minted them. */
export interface InterruptTokens {
  readonly resolveToken: string;
  readonly inspectToken: string;
  readonly expiresAt: string;
}

/** How long a snapshot read waits for the token service to mint the tokens of a fresh interrupt. */
export const MINT_WAIT_MS = 1_000;
const MINT_POLL_MS = 50;

/**
 * Reads the token service's `resolution_tokens` read model. The gateway never signs or verifies:
 * it only shows the tokens the token service minted, next to the run snapshot.
 */
@Injectable()
export class ResolutionTokenReadRepository {
  constructor(@Inject(DATA_SOURCE) private readonly ds: DataSource) {}

  /**
   * The valid tokens of `interruptId`. The snapshot can show a new interrupt a moment before the
   * token service (another consumer of the same log) minted its tokens, so a missing row is re-read
   * for up to `waitMs`; an invalidated one is `undefined` at once.
   */
  async findValid(interruptId: string, waitMs = MINT_WAIT_MS): Promise<InterruptTokens | undefined> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const rows = await this.ds.query<
        { resolve_token: string; inspect_token: string; expires_at: Date; invalidated: boolean }[]
      >(
        `SELECT resolve_token, inspect_token, expires_at, invalidated_at IS NOT NULL AS invalidated
         FROM resolution_tokens WHERE interrupt_id = $1`,
        [interruptId],
      );
      const row = rows[0];
      if (row) {
        return row.invalidated
          ? undefined
          : {
              resolveToken: row.resolve_token,
              inspectToken: row.inspect_token,
              expiresAt: row.expires_at.toISOString(),
            };
      }
      if (Date.now() + MINT_POLL_MS > deadline) return undefined;
      await new Promise((r) => setTimeout(r, MINT_POLL_MS));
    }
  }

  /** The interrupt the run's snapshot shows pending, if any (no tenant check: the caller holds a verified token). */
  async pendingInterruptId(runId: string): Promise<string | undefined> {
    const rows = await this.ds.query<{ interrupt_id: string | null }[]>(
      `SELECT snapshot->'interrupt'->>'interruptId' AS interrupt_id FROM runs WHERE run_id = $1`,
      [runId],
    );
    return rows[0]?.interrupt_id ?? undefined;
  }
}
