import { Controller, Get, Param, Query } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { createQueryValidationPipe } from '../common/validation.pipe';
import {
  ConversationReadRepository,
  type ConversationSummary,
  type ConversationTurnView,
} from '../conversations/conversation-read.repository';
import { RunReadRepository } from '../runs/run-read.repository';
import { DEFAULT_TURN_PAGE, GetConversationQueryDto } from './get-conversation.query.dto';

/** One page of a conversation's transcript. */
export interface ConversationTranscript extends ConversationSummary {
  readonly turns: readonly ConversationTurnView[];
  /** Pass as `after` for the next page; absent on the last page. */
  readonly nextCursor?: number;
}

/**
 * `GET /v1/runs/{runId}/conversations/{conversationId}?after=&limit=`: the conversation and one
 * page of its turns in `turnIndex` order, from the projection.
 */
@Controller()
export class GetConversationController {
  constructor(
    private readonly runs: RunReadRepository,
    private readonly conversations: ConversationReadRepository,
  ) {}

  @Get('/v1/runs/:runId/conversations/:conversationId')
  @RequireScope('runs:read')
  async get(
    @Param('runId') runId: string,
    @Param('conversationId') conversationId: string,
    @Query(createQueryValidationPipe()) query: GetConversationQueryDto,
    @CurrentCaller() caller: Caller,
  ): Promise<ConversationTranscript> {
    await this.runs.requireVisible(runId, caller.tenant);
    const conversation = await this.conversations.require(runId, conversationId, caller.tenant);
    const limit = query.limit ?? DEFAULT_TURN_PAGE;
    const read = await this.conversations.turnsAfter(conversationId, query.after ?? -1, limit + 1);
    const turns = read.slice(0, limit);
    const last = turns.at(-1);
    return { ...conversation, turns, ...(read.length > limit && last ? { nextCursor: last.turnIndex } : {}) };
  }
}
