import { createHash } from 'node:crypto';
import { DomainError } from '@openwop/kernel';
import { resolveErrorCode } from '../common/error-status.table';
import type { BulkTarget } from './bulk-decision.request';

/** One entry of a bulk decision's `results`, in selection order. */
export type BulkDecisionResult =
  | { readonly runId: string; readonly nodeId: string; readonly ok: true; readonly status: string }
  | {
      readonly runId: string;
      readonly nodeId: string;
      readonly ok: false;
      readonly error: {
        readonly code: string;
        readonly message: string;
        readonly details?: Record<string, unknown>;
      };
    };

/** How many of one bulk request's items are in flight at once (the bus and the services see at most this many). */
export const BULK_ITEMS_AT_ONCE = 16;

export function succeeded(target: BulkTarget, status: string): BulkDecisionResult {
  return { runId: target.runId, nodeId: target.nodeId, ok: true, status };
}

/**
 * The entry of an item that threw: a refusal keeps its code (after the gateway's aliases, so the
 * interrupt aggregate's own refusals — already resolved, not allowed to answer — reach the caller
 * as they are); any other failure is `unavailable` for this item alone.
 */
export function failed(target: BulkTarget, error: unknown): BulkDecisionResult {
  const refusal =
    error instanceof DomainError
      ? error
      : new DomainError(
          'unavailable',
          `Interrupt ${target.nodeId} of run ${target.runId} could not be decided now; retry it.`,
        );
  const { code } = resolveErrorCode(refusal.code);
  return {
    runId: target.runId,
    nodeId: target.nodeId,
    ok: false,
    error: { code, message: refusal.message, ...(refusal.details ? { details: refusal.details } : {}) },
  };
}

/**
 * The command id of one bulk item: derived from the operation, the tenant, the bulk request's key
 * (its `Idempotency-Key`, else its generated id) and the interrupt, shaped as a UUID. The interrupt
 * service dedupes on it, so an item sent again under the same key gets its first verdict, never a
 * second decision.
 */
export function bulkItemCommandId(
  operation: string,
  tenant: string,
  requestKey: string,
  target: BulkTarget,
): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([operation, tenant, requestKey, target.runId, target.nodeId]))
    .digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
