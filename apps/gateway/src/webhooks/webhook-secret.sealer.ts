import { Inject, Injectable, Logger } from '@nestjs/common';
import { registerSecret } from '@openwop/observability';
import { HOST_CONFIG, readOrCreateKeyFile, type HostConfig } from '@openwop/platform-nest';
import {
  describeWebhookKeyRing,
  keyRingEncodings,
  loadWebhookSecretKeys,
  sealWebhookSecret,
  WEBHOOK_SECRET_KEYS_ENV,
  type SecretBinding,
  type WebhookSecretKeyRing,
} from '@openwop/webhook-domain';
import { ApiError } from '../common/api.error';

/**
 * Seals a new subscription's secret under the current key of the operator's ring (ADR 0028) before
 * it is written; only the envelope reaches Postgres. Distributed mode without
 * `OPENWOP_WEBHOOK_SECRET_KEYS` refuses registrations (`503 unavailable`) rather than store a
 * secret in plain text or under a key the notifiers do not share.
 */
@Injectable()
export class WebhookSecretSealer {
  private readonly ring: WebhookSecretKeyRing | undefined;

  constructor(@Inject(HOST_CONFIG) config: HostConfig) {
    const logger = new Logger('Webhooks');
    const loaded = loadWebhookSecretKeys(config, process.env, readOrCreateKeyFile);
    this.ring = loaded.ring;
    if (loaded.ring) {
      registerSecret(...keyRingEncodings(loaded.ring));
      logger.log(`webhook secret keys from ${loaded.from}: ${describeWebhookKeyRing(loaded.ring)}`);
    } else {
      logger.warn(`${loaded.from}: webhook registrations are refused (503) until it is`);
    }
  }

  seal(secret: string, binding: SecretBinding): string {
    if (!this.ring)
      throw new ApiError(
        'unavailable',
        `Webhook registration needs ${WEBHOOK_SECRET_KEYS_ENV} (the operator key ring that encrypts webhook secrets at rest) on this host.`,
        { reason: 'webhook_secret_keys_missing' },
      );
    return sealWebhookSecret(this.ring, secret, binding);
  }
}
