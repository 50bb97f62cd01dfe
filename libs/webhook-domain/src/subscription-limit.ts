/** The variable that sets how many webhook subscriptions one tenant may hold. */
export const MAX_WEBHOOKS_PER_TENANT_ENV = 'WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT';

/** Subscriptions a tenant may hold when the variable is unset. */
export const DEFAULT_MAX_WEBHOOKS_PER_TENANT = 100;

/**
 * The per-tenant cap on webhook subscriptions (`WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT`, default
 * 100). Every event costs a delivery row per matching subscription, so the cap bounds what one
 * tenant's runs make the notifier write and send.
 *
 * @throws Error when the variable is set but is not an integer from 1 to 100,000, so a
 *   misconfigured host fails at start instead of advertising a limit it does not hold.
 */
export function maxWebhooksPerTenant(
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  const raw = env[MAX_WEBHOOKS_PER_TENANT_ENV]?.trim();
  if (raw === undefined || raw === '') return DEFAULT_MAX_WEBHOOKS_PER_TENANT;
  if (!/^[1-9]\d{0,5}$/.test(raw) || Number(raw) > 100_000) {
    throw new Error(`${MAX_WEBHOOKS_PER_TENANT_ENV} must be an integer from 1 to 100000, got '${raw}'`);
  }
  return Number(raw);
}
