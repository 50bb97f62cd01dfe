import { DEFAULT_MAX_WEBHOOKS_PER_TENANT, maxWebhooksPerTenant } from './subscription-limit';

describe('maxWebhooksPerTenant', () => {
  it('is 100 unless set, and takes an integer from 1 to 100,000', () => {
    expect(DEFAULT_MAX_WEBHOOKS_PER_TENANT).toBe(100);
    expect(maxWebhooksPerTenant({})).toBe(100);
    expect(maxWebhooksPerTenant({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT: ' ' })).toBe(100);
    expect(maxWebhooksPerTenant({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT: '1' })).toBe(1);
    expect(maxWebhooksPerTenant({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT: '100000' })).toBe(100_000);
  });

  it.each(['0', '-1', '1.5', 'ten', '100001', '01'])('refuses %j at start, naming the variable', (raw) => {
    expect(() => maxWebhooksPerTenant({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT: raw })).toThrow(
      /WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT must be an integer from 1 to 100000/,
    );
  });
});
