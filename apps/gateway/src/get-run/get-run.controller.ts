import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { InterruptTokenPresenter } from '../interrupt-tokens/interrupt-token.presenter';
import { runChannels } from '@openwop/contracts';
import { ConversationReadRepository } from '../conversations/conversation-read.repository';
import { RunReadRepository } from '../runs/run-read.repository';

/**
 * `GET /v1/runs/{runId}`: the projected `RunSnapshot`, its pending interrupt carrying the signed
 * tokens the caller may hold, and `channels.messages`: the run's conversation turns folded through
 * the `message` reducer (RFC 0005 §F, ADR 0023), read from the projector's transcript tables.
 */
@ApiTags('runs')
@Controller()
export class GetRunController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly tokens: InterruptTokenPresenter,
    private readonly conversations: ConversationReadRepository,
  ) {}

  @Get('/v1/runs/:runId')
  @RequireScope('runs:read')
  @ApiOkResponse({
    description:
      'The RunSnapshot (run-snapshot.schema.json). A pending `interrupt` carries `inspectToken`, `inspectUrl` and `tokenExpiresAt`; ' +
      'for a key holding `approvals:respond` also the resolving `interruptToken` and `callbackUrl`; once the tokens expired, `tokenExpired: true` and none. ' +
      '`channels.messages` (present once the run held a conversation): its turns through the `message` reducer, ids relative to the run.',
  })
  @ApiNotFoundResponse({ description: 'No such run for this tenant (`not_found`).' })
  async getRun(@Param('runId') runId: string, @CurrentCaller() caller: Caller): Promise<Record<string, unknown>> {
    const snapshot = await this.tokens.present(await this.runs.requireVisible(runId, caller.tenant), caller);
    const channels = runChannels(runId, await this.conversations.recordedForRun(runId, caller.tenant));
    return channels ? { ...snapshot, channels } : snapshot;
  }
}
