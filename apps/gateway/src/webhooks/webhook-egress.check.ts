import { Injectable } from '@nestjs/common';
import { createHostResolver, postPinned, type HostResolver } from '@openwop/platform-nest';
import {
  checkResolvedAddresses,
  checkWebhookUrl,
  newVerificationChallenge,
  parseAllowedHosts,
  standardWebhooksHeaders,
  verificationAnswered,
  verificationBody,
  type AllowedHosts,
  type EgressRefusal,
} from '@openwop/webhook-domain';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../common/api.error';

/** Comma-separated host names that may take `http:` and private addresses (tests, private deployments). */
export const WEBHOOK_ALLOW_HOSTS_ENV = 'WEBHOOK_ALLOW_HOSTS';

/** How long an endpoint has to answer the verification request (RFC 0201 §D.14: 10 s). */
export const ENDPOINT_VERIFICATION_TIMEOUT_MS = 10_000;
/** The most of the verification answer read: a `{challenge}` object is far smaller. */
const VERIFICATION_ANSWER_MAX_BYTES = 4096;

/** A URL that passed the guard, with the one checked address to connect to. */
export interface CheckedDestination {
  readonly url: URL;
  readonly hostname: string;
  readonly address: string;
}

/**
 * The SSRF guard (webhooks.md §Egress) as the gateway applies it: the URL's scheme and name, then
 * every address the name resolves to now. Used at webhook registration, at `createRun` for a
 * `callbackUrl` (interrupt.md §Callback delivery), and before the one endpoint-verification request
 * of a `standard-webhooks-1` registration. The notifier checks again at every delivery.
 */
@Injectable()
export class WebhookEgressCheck {
  private readonly allowed: AllowedHosts = parseAllowedHosts(process.env[WEBHOOK_ALLOW_HOSTS_ENV]);
  private readonly resolve: HostResolver = createHostResolver();

  /** The destination, or the refusal the guard gives. */
  async check(url: string): Promise<CheckedDestination | { readonly refusal: EgressRefusal }> {
    const parsed = checkWebhookUrl(url, this.allowed);
    if ('refusal' in parsed) return parsed;
    const addresses = await this.resolve(parsed.target.hostname, 'register');
    const refusal = checkResolvedAddresses(parsed.target.hostname, addresses, this.allowed);
    if (refusal) return { refusal };
    return { url: parsed.target.url, hostname: parsed.target.hostname, address: addresses[0]! };
  }

  /**
   * @throws {@link ApiError} `webhook_url_rejected` (400) with `details.reason` when the URL may not be
   * registered.
   */
  async assertRegistrable(url: string): Promise<void> {
    const checked = await this.check(url);
    if ('refusal' in checked) throw rejected(checked.refusal);
  }

  /**
   * RFC 0201 §D (v2 webhooks.md §Standard Webhooks, Endpoint verification): one POST of
   * `{type: "openwop.webhook.verification", challenge}` to `url`, signed with the three Standard
   * Webhooks headers under the supplied secret, under the egress guard (re-resolved, every address
   * checked, pinned, no redirect), no `OpenWOP-Event-Type`, never retried. Consent is a 2xx within
   * 10 s whose JSON `challenge` equals the one sent.
   * @throws {@link ApiError} `webhook_url_rejected` when the guard refuses the URL now,
   * `webhook_endpoint_unverified` (400) for anything but consent.
   */
  async verifyEndpoint(url: string, secret: string, userAgent: string): Promise<void> {
    const checked = await this.check(url);
    if ('refusal' in checked) throw rejected(checked.refusal);
    const challenge = newVerificationChallenge();
    const body = verificationBody(challenge);
    const answer = await postPinned({
      ...checked,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': userAgent,
        ...standardWebhooksHeaders({
          secret,
          messageId: `wvr_${randomBytes(16).toString('hex')}`,
          nowSeconds: Math.floor(Date.now() / 1000),
          body,
        }),
      },
      body,
      timeoutMs: ENDPOINT_VERIFICATION_TIMEOUT_MS,
      maxResponseBytes: VERIFICATION_ANSWER_MAX_BYTES,
    });
    if ('error' in answer)
      throw unverified(`the verification request failed: ${answer.error}`, answer.status);
    if (!verificationAnswered(answer.status, answer.body, challenge))
      throw unverified(
        answer.status >= 200 && answer.status < 300
          ? 'the endpoint answered without the challenge it was sent'
          : `the endpoint answered ${answer.status}${answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : ''}`,
        answer.status,
      );
  }
}

function rejected(refusal: EgressRefusal): ApiError {
  return new ApiError('webhook_url_rejected', `The webhook URL is refused: ${refusal.detail}.`, {
    ...refusal,
  });
}

function unverified(reason: string, status: number | undefined): ApiError {
  return new ApiError(
    'webhook_endpoint_unverified',
    `The endpoint did not confirm the subscription: ${reason}. Nothing was registered.`,
    { reason, ...(status !== undefined ? { status } : {}) },
  );
}
