import { createHmac } from 'node:crypto';
import { newWebhookSecret, secretFingerprint, signDelivery, verifyDelivery } from './signature';

describe('webhook signature (webhooks.md §Verification recipe)', () => {
  const secret = 'f'.repeat(64);
  const body = '{"runId":"r1","workspaceId":"t1","event":{"type":"run.completed"}}';

  it('signs HMAC-SHA256 over `{timestamp}.{rawBody}` as sha256={hex}', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signDelivery(secret, 1700000000, body)).toBe(`sha256=${expected}`);
  });

  it('verifies its own signature within ±5 minutes, and nothing else', () => {
    const sig = signDelivery(secret, 1700000000, body);
    expect(verifyDelivery(secret, { timestamp: '1700000000', signature: sig }, body, 1700000299)).toBe(true);
    expect(verifyDelivery(secret, { timestamp: '1700000000', signature: sig }, body, 1700000301)).toBe(false);
    expect(verifyDelivery(secret, { timestamp: '1700000000', signature: sig }, body + ' ', 1700000000)).toBe(
      false,
    );
    expect(
      verifyDelivery('0'.repeat(64), { timestamp: '1700000000', signature: sig }, body, 1700000000),
    ).toBe(false);
    expect(verifyDelivery(secret, { timestamp: '1700000001', signature: sig }, body, 1700000000)).toBe(false);
    expect(verifyDelivery(secret, { timestamp: undefined, signature: sig }, body, 1700000000)).toBe(false);
    expect(
      verifyDelivery(secret, { timestamp: '1700000000', signature: 'sha256=zz' }, body, 1700000000),
    ).toBe(false);
  });

  it('fingerprints as the first 8 hex of sha256(secret); secrets are 64 hex', () => {
    expect(secretFingerprint('abc')).toBe('ba7816bf');
    const s = newWebhookSecret((n) => Buffer.alloc(n, 7));
    expect(s).toBe('07'.repeat(32));
    expect(newWebhookSecret()).toMatch(/^[0-9a-f]{64}$/);
  });
});
