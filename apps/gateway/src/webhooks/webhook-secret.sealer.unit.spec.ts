import { randomBytes } from 'node:crypto';
import type { HostConfig } from '@openwop/platform-nest';
import { openWebhookSecret, parseWebhookSecretKeys } from '@openwop/webhook-domain';
import { ApiError } from '../common/api.error';
import { WebhookSecretSealer } from './webhook-secret.sealer';

describe('WebhookSecretSealer', () => {
  const saved = process.env.OPENWOP_WEBHOOK_SECRET_KEYS;
  afterEach(() => {
    if (saved === undefined) delete process.env.OPENWOP_WEBHOOK_SECRET_KEYS;
    else process.env.OPENWOP_WEBHOOK_SECRET_KEYS = saved;
  });
  const distributed = {
    mode: 'distributed',
    dataDir: undefined,
    databaseUrl: 'postgres://x',
  } as unknown as HostConfig;
  const secret = 'ab'.repeat(32);

  it('seals under the first key of OPENWOP_WEBHOOK_SECRET_KEYS, bound to the subscription', () => {
    const raw = `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`;
    process.env.OPENWOP_WEBHOOK_SECRET_KEYS = raw;
    const sealed = new WebhookSecretSealer(distributed).seal(secret, { webhookId: 'wh_1', tenant: 't1' });
    expect(sealed.startsWith('v1:k2:')).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(
      openWebhookSecret(parseWebhookSecretKeys(raw, 'x'), sealed, { webhookId: 'wh_1', tenant: 't1' }).secret,
    ).toBe(secret);
  });

  it('distributed without a ring: registration is 503 unavailable naming the setting, nothing is stored in plain text', () => {
    delete process.env.OPENWOP_WEBHOOK_SECRET_KEYS;
    const sealer = new WebhookSecretSealer(distributed);
    let error: unknown;
    try {
      sealer.seal(secret, { webhookId: 'wh_1', tenant: 't1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('unavailable');
    expect((error as ApiError).message).toContain('OPENWOP_WEBHOOK_SECRET_KEYS');
    expect((error as ApiError).details).toEqual({ reason: 'webhook_secret_keys_missing' });
  });
});
