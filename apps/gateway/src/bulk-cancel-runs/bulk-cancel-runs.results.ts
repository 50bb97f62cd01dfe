import { DomainError } from '@openwop/kernel';
import { resolveErrorCode } from '../common/error-status.table';
import type { CancelOutcome } from '../cancel-run/cancel-run.handler';

/** The error of one failed entry: the spec's envelope fields, plus `code` as rest-endpoints.md's example reads it. */
export interface BulkCancelError {
  readonly error: string;
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

/** One entry of a bulk cancel's `results`, in request order. */
export type BulkCancelResult =
  | { readonly runId: string; readonly ok: true; readonly status: string }
  | { readonly runId: string; readonly ok: false; readonly error: BulkCancelError };

/**
 * The entry for a cancel that was answered: a run that is (being) cancelled is `ok` (so a repeated
 * bulk cancel is idempotent); one that had already completed or failed is `run_terminal` with its
 * status in `details.runStatus` (rest-endpoints.md §bulk-cancel).
 */
export function resultOfOutcome(outcome: CancelOutcome): BulkCancelResult {
  if (outcome.status === 'cancelled' || outcome.status === 'cancelling') {
    return { runId: outcome.runId, ok: true, status: outcome.status };
  }
  return failed(
    outcome.runId,
    new DomainError('run_terminal', `Run ${outcome.runId} is already ${outcome.status}.`, {
      runStatus: outcome.status,
    }),
  );
}

/**
 * The entry for a cancel that threw. A refusal keeps its code (after the gateway's aliases); any
 * other failure is `unavailable` for this entry alone, so it never blocks its siblings.
 */
export function resultOfFailure(runId: string, error: unknown): BulkCancelResult {
  if (error instanceof DomainError) return failed(runId, error);
  return failed(runId, new DomainError('unavailable', `Run ${runId} could not be cancelled now; retry it.`));
}

function failed(runId: string, error: DomainError): BulkCancelResult {
  const { code } = resolveErrorCode(error.code);
  return {
    runId,
    ok: false,
    error: {
      error: code,
      code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    },
  };
}
