import { createHash } from 'node:crypto';

/** What a subscription asks for (webhooks.md §Register), as the filter needs it. */
export interface SubscriptionFilter {
  readonly webhookId: string;
  /** The tenant the subscription was registered under: the only tenant whose runs it hears. */
  readonly tenant: string;
  /** Run event types (`RunEventType`), at least one. */
  readonly events: readonly string[];
  /** When non-empty, only runs carrying at least one of these tags. */
  readonly tags: readonly string[];
}

/** The run an event belongs to, as the filter needs it. */
export interface RunScope {
  readonly tenant: string;
  readonly tags: readonly string[];
}

/**
 * Whether `eventType` of a run in `run` is delivered to `sub`. The tenant check comes first and
 * is not widened by any filter: a subscription hears only its own tenant's runs (RFC 0093 §A.3).
 */
export function subscriptionMatches(sub: SubscriptionFilter, run: RunScope, eventType: string): boolean {
  if (sub.tenant !== run.tenant) return false;
  if (!sub.events.includes(eventType)) return false;
  if (sub.tags.length === 0) return true;
  return sub.tags.some((t) => run.tags.includes(t));
}

/**
 * The id of the delivery of one event to one subscription: the same on every redelivery of the
 * event to any notifier instance, so recording it twice is recording it once.
 */
export function deliveryIdOf(webhookId: string, eventId: string): string {
  return 'whd_' + createHash('sha256').update(`${webhookId}\n${eventId}`, 'utf8').digest('hex').slice(0, 32);
}

/** The tags of a run from its `run.started` payload (`metadata.tags`), strings only. */
export function runTagsOf(startedPayload: unknown): string[] {
  const metadata = (startedPayload as { metadata?: { tags?: unknown } } | null | undefined)?.metadata;
  const tags = metadata?.tags;
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
}
