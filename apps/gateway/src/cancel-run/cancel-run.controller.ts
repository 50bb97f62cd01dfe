import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { createValidationPipe } from '../common/validation.pipe';
import { CancelRunHandler, type CancelOutcome } from './cancel-run.handler';
import { CancelRunRequestDto } from './cancel-run.request.dto';

/**
 * `POST /v1/runs/{runId}/cancel`: `200` with the run's status after the cancel (`cancelled`, or
 * `cancelling` while the cascade runs); cancelling a run that already ended is not an error and
 * answers its terminal status (see {@link CancelRunHandler}).
 */
@Controller()
export class CancelRunController {
  constructor(private readonly handler: CancelRunHandler) {}

  @Post('/v1/runs/:runId/cancel')
  @HttpCode(200)
  @RequireScope('runs:cancel')
  async cancel(
    @Param('runId') runId: string,
    @Body(createValidationPipe()) body: CancelRunRequestDto,
    @CurrentCaller() caller: Caller,
  ): Promise<CancelOutcome> {
    return this.handler.cancel(runId, body.reason, caller);
  }
}
