import { Body, Controller, HttpCode, Post, type PipeTransform } from '@nestjs/common';
import type { Caller } from '../auth/api-key.registry';
import { CurrentCaller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { createValidationPipe } from '../common/validation.pipe';
import { CancelRunHandler } from '../cancel-run/cancel-run.handler';
import { BulkCancelRunsRequestDto, MAX_BULK_CANCEL_RUN_IDS } from './bulk-cancel-runs.request.dto';
import { resultOfFailure, resultOfOutcome, type BulkCancelResult } from './bulk-cancel-runs.results';

/** The route of `POST /v1/runs:bulk-cancel`; the colon is literal (escaped for Express' path syntax). */
export const BULK_CANCEL_RUNS_ROUTE = '/v1/runs\\:bulk-cancel';

/** How many of one request's cancels are in flight at once. */
const CANCELS_AT_ONCE = 8;

/**
 * Refuses an over-cap `runIds` before anything else, with the ceiling in `details.maxRunIds`
 * (rest-endpoints.md), whatever else is wrong with the body.
 */
const refuseOverCap: PipeTransform = {
  transform(value: unknown): unknown {
    const runIds = (value as { runIds?: unknown } | undefined)?.runIds;
    if (Array.isArray(runIds) && runIds.length > MAX_BULK_CANCEL_RUN_IDS) {
      throw ApiError.validation(
        `runIds takes at most ${MAX_BULK_CANCEL_RUN_IDS} run ids.`,
        [{ path: '/runIds', message: `must have at most ${MAX_BULK_CANCEL_RUN_IDS} items` }],
        { maxRunIds: MAX_BULK_CANCEL_RUN_IDS },
      );
    }
    return value;
  },
};

/**
 * `POST /v1/runs:bulk-cancel` (rest-endpoints.md): each run is cancelled on its own through the same
 * {@link CancelRunHandler} as the single route, so one failure never blocks the others; `200` with
 * one result per requested id, in order, even when every one failed. A run of another tenant answers
 * `not_found` in its entry, exactly as an unknown one.
 */
@Controller()
export class BulkCancelRunsController {
  constructor(private readonly handler: CancelRunHandler) {}

  @Post(BULK_CANCEL_RUNS_ROUTE)
  @HttpCode(200)
  @RequireScope('runs:cancel')
  async bulkCancel(
    @Body(refuseOverCap, createValidationPipe()) body: BulkCancelRunsRequestDto,
    @CurrentCaller() caller: Caller,
  ): Promise<{ results: BulkCancelResult[] }> {
    const results: BulkCancelResult[] = new Array<BulkCancelResult>(body.runIds.length);
    const item: Caller = { ...caller, via: 'bulk' };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < body.runIds.length) {
        const index = next++;
        const runId = body.runIds[index]!;
        try {
          results[index] = resultOfOutcome(await this.handler.cancel(runId, body.reason, item));
        } catch (error) {
          results[index] = resultOfFailure(runId, error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CANCELS_AT_ONCE, body.runIds.length) }, worker));
    return { results };
  }
}
