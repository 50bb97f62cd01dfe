import { metrics, type Counter } from '@opentelemetry/api';
import { currentTelemetry } from './telemetry';

/** The notifier's housekeeping (docs/adr/0028). */
export const WebhookMetricName = {
  /** Settled delivery rows the retention sweep deleted, by `status` (delivered, failed, skipped, dead). */
  deliveriesPruned: 'openwop.webhook.deliveries_pruned',
} as const;

let pruned: Counter | undefined;

/** Counts delivery rows of `status` the retention sweep deleted. */
export function countWebhookDeliveriesPruned(status: string, count: number): void {
  if (count <= 0) return;
  if (!pruned) {
    if (!currentTelemetry()?.metrics) return;
    pruned = metrics.getMeter('openwop').createCounter(WebhookMetricName.deliveriesPruned, {
      description: 'Settled webhook delivery rows deleted by the retention sweep, by status.',
    });
  }
  pruned.add(count, { status });
}
