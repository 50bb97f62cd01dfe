import { SIGNATURE_ALGORITHM, signDelivery } from './signature';
import { standardWebhooksHeaders } from './standard-webhooks';

/** The request header names of a delivery (webhooks.md §Headers). */
export const DeliveryHeaders = {
  webhookId: 'X-openwop-Webhook-Id',
  eventType: 'X-openwop-Event-Type',
  timestamp: 'X-openwop-Timestamp',
  signature: 'X-openwop-Signature',
  signatureAlgorithm: 'X-openwop-Signature-Algorithm',
  /** Host additions: the delivery's id (the same on every retry) and the attempt number. */
  deliveryId: 'X-openwop-Delivery-Id',
  attempt: 'X-openwop-Delivery-Attempt',
} as const;

/**
 * The `OpenWOP-*` names of the five spec headers (RFC 0165 §C.1; v2 webhooks.md §Headers), sent on
 * every delivery beside their `X-openwop-*` counterparts with identical values: a subscriber may
 * read either family and verifies the same bytes. The host additions have no second spelling.
 */
export const OpenWopDeliveryHeaders = {
  webhookId: 'OpenWOP-Webhook-Id',
  eventType: 'OpenWOP-Event-Type',
  timestamp: 'OpenWOP-Timestamp',
  signature: 'OpenWOP-Signature',
  signatureAlgorithm: 'OpenWOP-Signature-Algorithm',
} as const;

/** The body of a delivery: the run, its tenant, and the run event verbatim (webhooks.md §Body). */
export function deliveryBody(event: { readonly runId: string }, tenant: string): string {
  return JSON.stringify({ runId: event.runId, workspaceId: tenant, event });
}

/**
 * The headers of one attempt, signed at `nowSeconds`. A subscription that opted into
 * `standard-webhooks-1` (`standardWebhooks: true`; its secret is then `whsec_…`) also gets
 * `webhook-id` (the delivery id: the same on every attempt of the delivery, after a restart too),
 * `webhook-timestamp` (= `OpenWOP-Timestamp`) and `webhook-signature` (RFC 0201 §C).
 *
 * Within a rotation's overlap (`previousSecret`, v2 webhooks.md §Standard Webhooks "Rotation"),
 * `OpenWOP-Signature` stays on the previous secret and `webhook-signature` carries one entry per
 * secret; afterwards the caller passes no `previousSecret` and only the new secret signs.
 */
export function deliveryHeaders(input: {
  readonly webhookId: string;
  readonly deliveryId: string;
  readonly eventType: string;
  readonly secret: string;
  readonly previousSecret?: string;
  readonly body: string;
  readonly attempt: number;
  readonly nowSeconds: number;
  readonly userAgent: string;
  readonly standardWebhooks?: boolean;
}): Record<string, string> {
  // One value per spec header, written under both names: the families cannot disagree.
  const spec: Record<keyof typeof OpenWopDeliveryHeaders, string> = {
    webhookId: input.webhookId,
    eventType: input.eventType,
    timestamp: String(input.nowSeconds),
    signature: signDelivery(input.previousSecret ?? input.secret, input.nowSeconds, input.body),
    signatureAlgorithm: SIGNATURE_ALGORITHM,
  };
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': input.userAgent,
  };
  for (const [field, value] of Object.entries(spec) as [keyof typeof spec, string][]) {
    headers[DeliveryHeaders[field]] = value;
    headers[OpenWopDeliveryHeaders[field]] = value;
  }
  headers[DeliveryHeaders.deliveryId] = input.deliveryId;
  headers[DeliveryHeaders.attempt] = String(input.attempt);
  if (input.standardWebhooks === true)
    Object.assign(
      headers,
      standardWebhooksHeaders({
        secret: input.secret,
        ...(input.previousSecret !== undefined ? { previousSecret: input.previousSecret } : {}),
        messageId: input.deliveryId,
        nowSeconds: input.nowSeconds,
        body: input.body,
      }),
    );
  return headers;
}

/** How an attempt ended, as the breaker and the retry schedule see it. */
export type AttemptOutcome =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly status?: number; readonly error: string };

/** A 2xx is a delivery; anything else (a 3xx too: redirects are not followed, RFC 0093 §A.2) fails. */
export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status >= 300 && status < 400) return { ok: false, status, error: `redirect ${status} not followed` };
  return { ok: false, status, error: `status ${status}` };
}
