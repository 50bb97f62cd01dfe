import { deliveryHeaders } from './delivery-request';
import { previousSecretInOverlap, rotatedSecret, secretRotationOverlapSeconds } from './secret-rotation';
import { signDelivery } from './signature';
import { signStandardWebhooks, standardWebhooksKey, verifyStandardWebhooks } from './standard-webhooks';

const OLD = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const sw = (h: Record<string, string>) => ({
  id: h['webhook-id'],
  timestamp: h['webhook-timestamp'],
  signature: h['webhook-signature'],
});
const input = {
  webhookId: 'wh_1',
  deliveryId: 'whd_0123456789abcdef0123456789abcdef',
  eventType: 'run.completed',
  body: '{"runId":"r1"}',
  attempt: 1,
  nowSeconds: 1_700_000_000,
  userAgent: 'test',
  standardWebhooks: true,
};

describe('webhook secret rotation (v2 webhooks.md §Standard Webhooks "Rotation")', () => {
  it('overlap: 24 h unless set; an integer from 1 to 604,800, refused otherwise at start', () => {
    expect(secretRotationOverlapSeconds({})).toBe(86_400);
    expect(secretRotationOverlapSeconds({ WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS: '3' })).toBe(3);
    for (const raw of ['0', '-1', '1.5', '604801', 'day'])
      expect(() => secretRotationOverlapSeconds({ WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS: raw })).toThrow(
        /WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS must be an integer from 1 to 604800/,
      );
  });

  it('mints a secret of the subscription form: whsec_ of 32 bytes when opted in, 64 hex otherwise', () => {
    expect(standardWebhooksKey(rotatedSecret(true))?.length).toBe(32);
    expect(rotatedSecret(false)).toMatch(/^[0-9a-f]{64}$/);
    expect(rotatedSecret(true)).not.toBe(rotatedSecret(true));
  });

  it('the previous secret signs only while its overlap lasts', () => {
    expect(previousSecretInOverlap('old', 2_000, 1_999)).toBe('old');
    expect(previousSecretInOverlap('old', 2_000, 2_000)).toBeUndefined();
    expect(previousSecretInOverlap(undefined, 2_000, 1_000)).toBeUndefined();
    expect(previousSecretInOverlap('old', undefined, 1_000)).toBeUndefined();
  });

  it('during the overlap: OpenWOP-Signature on the previous secret, one webhook-signature entry per secret', () => {
    const h = deliveryHeaders({ ...input, secret: NEW, previousSecret: OLD });
    expect(h['OpenWOP-Signature']).toBe(signDelivery(OLD, input.nowSeconds, input.body));
    expect(h['X-openwop-Signature']).toBe(h['OpenWOP-Signature']);
    const keys = [standardWebhooksKey(NEW)!, standardWebhooksKey(OLD)!];
    expect(h['webhook-signature']).toBe(
      signStandardWebhooks(keys, input.deliveryId, input.nowSeconds, input.body),
    );
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [NEW, OLD])
      expect(verifyStandardWebhooks(secret, sw(h), input.body, input.nowSeconds)).toBe(true);
  });

  it('after it: only the new secret signs, on both families', () => {
    const h = deliveryHeaders({ ...input, secret: NEW });
    expect(h['OpenWOP-Signature']).toBe(signDelivery(NEW, input.nowSeconds, input.body));
    expect(h['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyStandardWebhooks(OLD, sw(h), input.body, input.nowSeconds)).toBe(false);
    expect(verifyStandardWebhooks(NEW, sw(h), input.body, input.nowSeconds)).toBe(true);
  });

  it('a subscription that did not opt in: OpenWOP-Signature on the previous secret, no Standard Webhooks headers', () => {
    const h = deliveryHeaders({
      ...input,
      standardWebhooks: false,
      secret: 'b'.repeat(64),
      previousSecret: 'a'.repeat(64),
    });
    expect(h['OpenWOP-Signature']).toBe(signDelivery('a'.repeat(64), input.nowSeconds, input.body));
    expect(h['webhook-signature']).toBeUndefined();
  });
});
