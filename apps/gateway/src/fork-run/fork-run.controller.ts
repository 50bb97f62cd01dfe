import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { createValidationPipe } from '../common/validation.pipe';
import { ForkRunHandler } from './fork-run.handler';
import { ForkRunRequestDto } from './fork-run.request.dto';
import type { ForkRunResponseDto } from './fork-run.response.dto';

/**
 * The route of `POST /v1/runs/{runId}:fork`. The colon is literal (escaped for Express' path
 * syntax), so the route neither shadows nor is shadowed by `/v1/runs/{runId}`.
 */
export const FORK_RUN_ROUTE = '/v1/runs/:runId\\:fork';

/** `POST /v1/runs/{runId}:fork` (replay.md): validates the body and hands it to {@link ForkRunHandler}. */
@Controller()
export class ForkRunController {
  constructor(private readonly handler: ForkRunHandler) {}

  @Post(FORK_RUN_ROUTE)
  @HttpCode(201)
  @RequireScope('runs:create', 'runs:read')
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
