import { Controller, Get, Inject, Param } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { InterruptTokenPresenter } from '../interrupt-tokens/interrupt-token.presenter';
import { runChannels, V1_EVENT_LOG_SCHEMA_VERSION } from '@openwop/contracts';
import { DATA_SOURCE } from '@openwop/platform-nest';
import type { DataSource } from 'typeorm';
import { ConversationReadRepository } from '../conversations/conversation-read.repository';
import { RunReadRepository } from '../runs/run-read.repository';

/**
 * `GET /v1/runs/{runId}`: the projected `RunSnapshot`, its pending interrupt carrying the signed
 * tokens the caller may hold, and `channels.messages`: the run's conversation turns folded through
 * the `message` reducer (RFC 0005 §F, ADR 0023), read from the projector's transcript tables.
 */
@Controller()
export class GetRunController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly tokens: InterruptTokenPresenter,
    private readonly conversations: ConversationReadRepository,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
  ) {}

  @Get('/v1/runs/:runId')
  @RequireScope('runs:read')
  async getRun(
    @Param('runId') runId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<Record<string, unknown>> {
    const snapshot = await this.withClaim(
      await this.tokens.present(await this.runs.requireVisible(runId, caller.tenant), caller),
      caller.tenant,
    );
    const channels = runChannels(runId, await this.conversations.recordedForRun(runId, caller.tenant));
    // A snapshot projected before the era key was stamped reads as v1's era (absent ⇒ 2, never backfilled).
    const stamped = { eventLogSchemaVersion: V1_EVENT_LOG_SCHEMA_VERSION, ...snapshot };
    return channels ? { ...stamped, channels } : stamped;
  }

  /** The pending interrupt's live claim (the interrupt service's columns; a lapsed lease is none). */
  private async withClaim(
    snapshot: Record<string, unknown>,
    tenant: string,
  ): Promise<Record<string, unknown>> {
    const interrupt = snapshot.interrupt as { interruptId?: unknown } | undefined;
    if (typeof interrupt?.interruptId !== 'string') return snapshot;
    const [claim] = await this.ds.query<{ claimed_by: string; claim_expires_at: Date }[]>(
      `SELECT claimed_by, claim_expires_at FROM interrupts
       WHERE interrupt_id = $1 AND tenant = $2 AND status = 'pending' AND claimed_by IS NOT NULL AND claim_expires_at > $3`,
      [interrupt.interruptId, tenant, new Date()],
    );
    if (!claim) return snapshot;
    return {
      ...snapshot,
      interrupt: {
        ...interrupt,
        assignee: claim.claimed_by,
        claimExpiresAt: new Date(claim.claim_expires_at).toISOString(),
      },
    };
  }
}
