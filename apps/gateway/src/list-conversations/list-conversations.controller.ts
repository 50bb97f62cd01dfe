import { Controller, Get, Param } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import {
  ConversationReadRepository,
  type ConversationSummary,
} from '../conversations/conversation-read.repository';
import { RunReadRepository } from '../runs/run-read.repository';

/** `GET /v1/runs/{runId}/conversations`: the run's conversations (RFC 0005), from the projection. */
@Controller()
export class ListConversationsController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly conversations: ConversationReadRepository,
  ) {}

  @Get('/v1/runs/:runId/conversations')
  @RequireScope('runs:read')
  async list(
    @Param('runId') runId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<{ conversations: ConversationSummary[] }> {
    await this.runs.requireVisible(runId, caller.tenant);
    return { conversations: await this.conversations.listForRun(runId, caller.tenant) };
  }
}
