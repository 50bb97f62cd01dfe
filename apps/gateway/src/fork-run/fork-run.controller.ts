import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { createValidationPipe } from '../common/validation.pipe';
import { ForkRunHandler } from './fork-run.handler';
import { ForkRunRequestDto } from './fork-run.request.dto';
import { ForkRunResponseDto } from './fork-run.response.dto';

/**
 * The route of `POST /v1/runs/{runId}:fork`. The colon is literal (escaped for Express' path
 * syntax), so the route neither shadows nor is shadowed by `/v1/runs/{runId}`.
 */
export const FORK_RUN_ROUTE = '/v1/runs/:runId\\:fork';

/** `POST /v1/runs/{runId}:fork` (replay.md): validates the body and hands it to {@link ForkRunHandler}. */
@ApiTags('runs')
@Controller()
export class ForkRunController {
  constructor(private readonly handler: ForkRunHandler) {}

  @Post(FORK_RUN_ROUTE)
  @HttpCode(201)
  @RequireScope('runs:create', 'runs:read')
  @ApiCreatedResponse({
    type: ForkRunResponseDto,
    description: 'Fork accepted, new run started; `Location` names it.',
  })
  @ApiBadRequestResponse({
    description:
      'Malformed body, `replay` with a non-empty `runOptionsOverlay`, `branch` without `fromSeq` (`validation_error`).',
  })
  @ApiForbiddenResponse({
    description:
      'A scope is missing: `runs:create`/`runs:read`, or `approvals:respond` for a fork that reuses a recorded interrupt resolution (`forbidden`, `details.scopeRequired`, `details.resolvedAtSequence`).',
  })
  @ApiNotFoundResponse({ description: 'No such source run for this tenant (`not_found`).' })
  @ApiUnprocessableEntityResponse({
    description: "`fromSeq` is not a sequence of the source run's event log (`sequence_not_found`).",
  })
  @ApiServiceUnavailableResponse({
    description:
      'The engine did not answer in time; the fork may still start (`unavailable`, `Retry-After`).',
  })
  async fork(
    @Param('runId') runId: string,
    @Body(createValidationPipe()) body: ForkRunRequestDto,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ForkRunResponseDto> {
    const { statusUrl, ...created } = await this.handler.handle(runId, body, caller);
    res.setHeader('Location', statusUrl);
    return created;
  }
}
