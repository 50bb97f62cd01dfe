import { createHmac } from 'node:crypto';
import { deliveryHeaders } from './delivery-request';
import {
  checkSignatureAlgorithms,
  newVerificationChallenge,
  signStandardWebhooks,
  standardWebhooksHeaders,
  standardWebhooksKey,
  verificationAnswered,
  verificationBody,
  verifyStandardWebhooks,
} from './standard-webhooks';

describe('Standard Webhooks 1.0.0 (standard-webhooks-1, RFC 0201)', () => {
  // The reference libraries' published test vector (standard-webhooks, libraries/*: "test valid signature").
  const vector = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };

  it('signs the reference vector: base64 HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed by the decoded secret, `v1,` prefixed', () => {
    const key = standardWebhooksKey(vector.secret)!;
    expect(signStandardWebhooks([key], vector.id, vector.timestamp, vector.body)).toBe(vector.signature);
    // The same, computed here from the recipe itself.
    const mac = createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'))
      .update(`${vector.id}.${vector.timestamp}.${vector.body}`)
      .digest('base64');
    expect(vector.signature).toBe(`v1,${mac}`);
  });

  it('space-separates one entry per key (rotation shape)', () => {
    const a = Buffer.alloc(24, 1);
    const b = Buffer.alloc(32, 2);
    const both = signStandardWebhooks([a, b], 'msg_0123456789abcdef', 1, '{}').split(' ');
    expect(both).toHaveLength(2);
    expect(both[0]).toBe(signStandardWebhooks([a], 'msg_0123456789abcdef', 1, '{}'));
    expect(both[1]).toBe(signStandardWebhooks([b], 'msg_0123456789abcdef', 1, '{}'));
  });

  it('accepts only whsec_ secrets whose base64 decodes to 24–64 bytes', () => {
    const of = (n: number) => `whsec_${Buffer.alloc(n, 7).toString('base64')}`;
    expect(standardWebhooksKey(of(24))).toHaveLength(24);
    expect(standardWebhooksKey(of(64))).toHaveLength(64);
    expect(standardWebhooksKey(of(23))).toBeUndefined();
    expect(standardWebhooksKey(of(65))).toBeUndefined();
    expect(standardWebhooksKey(Buffer.alloc(32, 7).toString('base64'))).toBeUndefined();
    expect(standardWebhooksKey('whsec_not base64!')).toBeUndefined();
    expect(standardWebhooksKey('whsec_')).toBeUndefined();
  });

  it('verifies within ±5 minutes with any matching entry, and refuses a changed id, body or stale timestamp', () => {
    const h = {
      id: vector.id,
      timestamp: String(vector.timestamp),
      signature: `v1,AAAA ${vector.signature}`,
    };
    expect(verifyStandardWebhooks(vector.secret, h, vector.body, vector.timestamp + 300)).toBe(true);
    expect(verifyStandardWebhooks(vector.secret, h, vector.body, vector.timestamp + 301)).toBe(false);
    expect(
      verifyStandardWebhooks(
        vector.secret,
        { ...h, id: 'msg_other_id_00000' },
        vector.body,
        vector.timestamp,
      ),
    ).toBe(false);
    expect(verifyStandardWebhooks(vector.secret, h, `${vector.body} `, vector.timestamp)).toBe(false);
    expect(
      verifyStandardWebhooks(
        vector.secret,
        { ...h, signature: 'v1a,' + vector.signature.slice(3) },
        vector.body,
        vector.timestamp,
      ),
    ).toBe(false);
  });

  it('refuses an id outside ^[A-Za-z0-9_-]{16,128}$ (no `.`)', () => {
    const base = { secret: vector.secret, nowSeconds: 1, body: '{}' };
    expect(() => standardWebhooksHeaders({ ...base, messageId: 'short' })).toThrow(/webhook-id/);
    expect(() => standardWebhooksHeaders({ ...base, messageId: 'whd_0123456789.abcdef' })).toThrow(
      /webhook-id/,
    );
    expect(standardWebhooksHeaders({ ...base, messageId: 'whd_0123456789abcdef' })['webhook-id']).toBe(
      'whd_0123456789abcdef',
    );
  });

  describe('delivery headers', () => {
    const input = {
      webhookId: 'wh_1',
      deliveryId: 'whd_0123456789abcdef0123456789abcdef',
      eventType: 'run.completed',
      secret: vector.secret,
      body: '{"runId":"r1"}',
      attempt: 1,
      nowSeconds: 1700000000,
      userAgent: 'ua',
    };

    it('an opted-in delivery adds webhook-id (the delivery id, every attempt), webhook-timestamp = OpenWOP-Timestamp, and a verifiable signature; the OpenWOP family is unchanged', () => {
      const first = deliveryHeaders({ ...input, standardWebhooks: true });
      const retry = deliveryHeaders({ ...input, attempt: 2, nowSeconds: 1700000100, standardWebhooks: true });
      expect(first['webhook-id']).toBe(input.deliveryId);
      expect(retry['webhook-id']).toBe(first['webhook-id']);
      expect(first['webhook-timestamp']).toBe(first['OpenWOP-Timestamp']);
      expect(retry['webhook-timestamp']).toBe('1700000100');
      expect(first['OpenWOP-Signature-Algorithm']).toBe('v1');
      expect(first['OpenWOP-Webhook-Id']).toBe('wh_1');
      expect(first['OpenWOP-Signature']).toBe(
        `sha256=${createHmac('sha256', vector.secret).update(`1700000000.${input.body}`).digest('hex')}`,
      );
      expect(
        verifyStandardWebhooks(
          vector.secret,
          {
            id: first['webhook-id'],
            timestamp: first['webhook-timestamp'],
            signature: first['webhook-signature'],
          },
          input.body,
          1700000000,
        ),
      ).toBe(true);
    });

    it('a subscription that did not opt in gets no webhook-* header', () => {
      const h = deliveryHeaders({ ...input, secret: 'f'.repeat(64) });
      expect(Object.keys(h).filter((k) => k.startsWith('webhook-'))).toEqual([]);
    });
  });

  describe('registration opt-in (RFC 0201 §B)', () => {
    const sw = vector.secret;
    it('absent means ["v1"]', () => {
      expect(checkSignatureAlgorithms(undefined, undefined)).toEqual({
        applied: ['v1'],
        standardWebhooks: false,
      });
    });
    it('lists v1, repeats nothing, names only offered schemes, and needs a whsec_ secret for standard-webhooks-1', () => {
      expect(checkSignatureAlgorithms(['v1', 'standard-webhooks-1'], sw)).toEqual({
        applied: ['v1', 'standard-webhooks-1'],
        standardWebhooks: true,
      });
      expect(checkSignatureAlgorithms(['v1'], 'any secret')).toEqual({
        applied: ['v1'],
        standardWebhooks: false,
      });
      expect(checkSignatureAlgorithms(['standard-webhooks-1'], sw)).toHaveProperty('refusal');
      expect(checkSignatureAlgorithms(['v1', 'v1'], sw)).toHaveProperty('refusal');
      expect(checkSignatureAlgorithms(['v1', 'ed25519'], sw)).toHaveProperty('refusal');
      expect(checkSignatureAlgorithms(['v1', 'standard-webhooks-1'], undefined)).toHaveProperty('refusal');
      expect(checkSignatureAlgorithms(['v1', 'standard-webhooks-1'], 'f'.repeat(64))).toHaveProperty(
        'refusal',
      );
      expect(checkSignatureAlgorithms(['v1', 'standard-webhooks-1'], sw, ['v1'])).toHaveProperty('refusal');
    });
  });

  describe('endpoint verification (RFC 0201 §D)', () => {
    it('a challenge is fresh base64url of at least 128 bits', () => {
      const c = newVerificationChallenge();
      expect(c).toMatch(/^[A-Za-z0-9_-]{22,128}$/);
      expect(newVerificationChallenge()).not.toBe(c);
      expect(JSON.parse(verificationBody(c))).toEqual({ type: 'openwop.webhook.verification', challenge: c });
    });
    it('consent is a 2xx whose JSON challenge equals the one sent; anything else refuses', () => {
      expect(verificationAnswered(200, '{"challenge":"abc"}', 'abc')).toBe(true);
      expect(verificationAnswered(204, '', 'abc')).toBe(false);
      expect(verificationAnswered(302, '{"challenge":"abc"}', 'abc')).toBe(false);
      expect(verificationAnswered(200, '{"challenge":"abd"}', 'abc')).toBe(false);
      expect(verificationAnswered(200, 'abc', 'abc')).toBe(false);
      expect(verificationAnswered(200, undefined, 'abc')).toBe(false);
    });
  });
});
