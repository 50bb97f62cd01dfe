import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_SEQUENCE } from '@openwop/contracts';
import { IntQuery } from '../common/int-query.transform';
import { Describe } from '../common/describe.decorator';

/** Turns one transcript page carries when `limit` is absent. */
export const DEFAULT_TURN_PAGE = 100;
/** Most turns one transcript page carries. */
export const MAX_TURN_PAGE = 1000;

/** Query of `GET /v1/runs/{runId}/conversations/{conversationId}`. */
export class GetConversationQueryDto {
  @Describe(
    "Return turns with a turnIndex greater than this (default -1: from turn 0); the previous page's `nextCursor`.",
  )
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(-1)
  @Max(MAX_SEQUENCE)
  after?: number;

  @Describe(`Most turns to return (default ${DEFAULT_TURN_PAGE}).`)
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(1)
  @Max(MAX_TURN_PAGE)
  limit?: number;
}
