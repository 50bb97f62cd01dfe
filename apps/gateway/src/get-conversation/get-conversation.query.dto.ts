import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_SEQUENCE } from '@openwop/contracts';
import { IntQuery } from '../common/int-query.transform';

/** Turns one transcript page carries when `limit` is absent. */
export const DEFAULT_TURN_PAGE = 100;
/** Most turns one transcript page carries. */
export const MAX_TURN_PAGE = 1000;

/** Query of `GET /v1/runs/{runId}/conversations/{conversationId}`. */
export class GetConversationQueryDto {
  @ApiPropertyOptional({
    description:
      "Return turns with a turnIndex greater than this (default -1: from turn 0); the previous page's `nextCursor`.",
    minimum: -1,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(-1)
  @Max(MAX_SEQUENCE)
  after?: number;

  @ApiPropertyOptional({
    description: `Most turns to return (default ${DEFAULT_TURN_PAGE}).`,
    minimum: 1,
    maximum: MAX_TURN_PAGE,
  })
  @IsOptional()
  @IntQuery()
  @IsInt()
  @Min(1)
  @Max(MAX_TURN_PAGE)
  limit?: number;
}
