import { Injectable } from '@nestjs/common';
import { createHostResolver, type HostResolver } from '@openwop/platform-nest';
import {
  checkResolvedAddresses,
  checkWebhookUrl,
  parseAllowedHosts,
  type AllowedHosts,
  type EgressRefusal,
} from '@openwop/webhook-domain';
import { ApiError } from '../common/api.error';

/** Comma-separated host names that may take `http:` and private addresses (tests, private deployments). */
export const WEBHOOK_ALLOW_HOSTS_ENV = 'WEBHOOK_ALLOW_HOSTS';

/**
 * The registration-time SSRF check (webhooks.md §SSRF protection): the URL's scheme and name, then
 * every address the name resolves to now. The notifier checks again at every delivery.
 */
@Injectable()
export class WebhookEgressCheck {
  private readonly allowed: AllowedHosts = parseAllowedHosts(process.env[WEBHOOK_ALLOW_HOSTS_ENV]);
  private readonly resolve: HostResolver = createHostResolver();

  /**
   * @throws {@link ApiError} `webhook_url_rejected` (400) with `details.reason` when the URL may not be
   * registered.
   */
  async assertRegistrable(url: string): Promise<void> {
    const parsed = checkWebhookUrl(url, this.allowed);
    if ('refusal' in parsed) throw rejected(parsed.refusal);
    const addresses = await this.resolve(parsed.target.hostname, 'register');
    const refusal = checkResolvedAddresses(parsed.target.hostname, addresses, this.allowed);
    if (refusal) throw rejected(refusal);
  }
}

function rejected(refusal: EgressRefusal): ApiError {
  return new ApiError('webhook_url_rejected', `The webhook URL is refused: ${refusal.detail}.`, {
    ...refusal,
  });
}
