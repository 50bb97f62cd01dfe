import { BEST_EFFORT_RETRY, nextRetryDelayMs } from './retry-schedule';
import { deliveryBody, deliveryHeaders, outcomeOfStatus } from './delivery-request';
import { verifyDelivery } from './signature';

describe('retry schedule', () => {
  const policy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 5000 };

  it('best effort is one attempt', () => {
    expect(nextRetryDelayMs(1, BEST_EFFORT_RETRY, 0.5)).toBeNull();
  });

  it('doubles from the base, capped, jittered within the upper half, until the attempts are spent', () => {
    expect(nextRetryDelayMs(1, policy, 0)).toBe(500);
    expect(nextRetryDelayMs(1, policy, 1)).toBe(1000);
    expect(nextRetryDelayMs(2, policy, 1)).toBe(2000);
    expect(nextRetryDelayMs(3, policy, 1)).toBe(4000);
    expect(nextRetryDelayMs(4, policy, 1)).toBe(5000);
    expect(nextRetryDelayMs(5, policy, 1)).toBeNull();
  });
});

describe('delivery request (webhooks.md §Headers, §Body)', () => {
  it('carries the spec headers and a body that verifies with the secret', () => {
    const body = deliveryBody({ runId: 'r1', type: 'run.completed', sequence: 3 } as never, 't1');
    expect(JSON.parse(body)).toEqual({
      runId: 'r1',
      workspaceId: 't1',
      event: { runId: 'r1', type: 'run.completed', sequence: 3 },
    });
    const h = deliveryHeaders({
      webhookId: 'wh_1',
      deliveryId: 'whd_1',
      eventType: 'run.completed',
      secret: 's3cret',
      body,
      attempt: 2,
      nowSeconds: 1700000000,
      userAgent: 'openwop-webhook-dispatcher/0.1.0',
    });
    expect(h).toEqual(
      expect.objectContaining({
        'Content-Type': 'application/json',
        'X-openwop-Webhook-Id': 'wh_1',
        'X-openwop-Event-Type': 'run.completed',
        'X-openwop-Timestamp': '1700000000',
        'X-openwop-Signature-Algorithm': 'v1',
        'X-openwop-Delivery-Attempt': '2',
      }),
    );
    expect(
      verifyDelivery(
        's3cret',
        { timestamp: h['X-openwop-Timestamp'], signature: h['X-openwop-Signature'] },
        body,
        1700000000,
      ),
    ).toBe(true);
  });

  it('carries the OpenWOP-* family beside X-openwop-* with identical values (RFC 0165 §C.1)', () => {
    const body = deliveryBody({ runId: 'r1', type: 'run.started', sequence: 0 } as never, 't1');
    const h = deliveryHeaders({
      webhookId: 'wh_2',
      deliveryId: 'whd_2',
      eventType: 'run.started',
      secret: 's3cret',
      body,
      attempt: 1,
      nowSeconds: 1700000001,
      userAgent: 'ua',
    });
    const names = ['Webhook-Id', 'Event-Type', 'Timestamp', 'Signature', 'Signature-Algorithm'];
    for (const name of names) {
      expect(h[`OpenWOP-${name}`]).toBeDefined();
      expect(h[`OpenWOP-${name}`]).toBe(h[`X-openwop-${name}`]);
    }
    expect(
      Object.keys(h)
        .filter((k) => k.startsWith('OpenWOP-'))
        .sort(),
    ).toEqual(names.map((n) => `OpenWOP-${n}`).sort());
    expect(
      verifyDelivery(
        's3cret',
        { timestamp: h['OpenWOP-Timestamp'], signature: h['OpenWOP-Signature'] },
        body,
        1700000001,
      ),
    ).toBe(true);
  });

  it('only a 2xx is delivered; a redirect is a failure', () => {
    expect(outcomeOfStatus(204)).toEqual({ ok: true, status: 204 });
    expect(outcomeOfStatus(302)).toEqual(
      expect.objectContaining({ ok: false, error: 'redirect 302 not followed' }),
    );
    expect(outcomeOfStatus(500)).toEqual(expect.objectContaining({ ok: false }));
  });
});
