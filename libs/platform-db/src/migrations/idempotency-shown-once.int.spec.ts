import type { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from '../data-source';
import { claimIdempotencyKey, settleIdempotencyKey, type IdempotencyScope } from '../idempotency-records';
import { IdempotencyShownOnce1700000002120 } from './1700000002120-idempotency-shown-once';

describe('migration 2120: stored webhook registrations lose their secret (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('idempotency_shown_once');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const settled = async (scope: IdempotencyScope, status: number, body: string) => {
    expect(await claimIdempotencyKey(ds, scope, 'd', 'owner', 60_000)).toEqual({ kind: 'claimed' });
    expect(
      await settleIdempotencyKey(ds, scope, 'owner', status < 400 ? 'completed' : 'terminal-failure', {
        status,
        headers: {},
        body,
      }),
    ).toBe(true);
  };

  it('removes `secret` from answers an earlier build stored for POST /v1/webhooks, and touches nothing else', async () => {
    const secret = 'e'.repeat(64);
    const webhook = { tenant: 't1', endpoint: 'POST /v1/webhooks', keyDigest: 'k1' };
    const refused = { tenant: 't1', endpoint: 'POST /v1/webhooks', keyDigest: 'k2' };
    const run = { tenant: 't1', endpoint: 'POST /v1/runs', keyDigest: 'k3' };
    await settled(webhook, 201, JSON.stringify({ webhookId: 'wh_1', secret, secretFingerprint: 'a1b2c3d4' }));
    await settled(refused, 422, JSON.stringify({ error: 'webhook_limit_exceeded', message: 'm' }));
    await settled(run, 201, JSON.stringify({ runId: 'r1', secret: 'not a shown-once field here' }));

    const runner = ds.createQueryRunner();
    try {
      await new IdempotencyShownOnce1700000002120().up(runner);
    } finally {
      await runner.release();
    }

    const rows = await ds.query<{ key_digest: string; response_body: string }[]>(
      'SELECT key_digest, response_body FROM idempotency_records ORDER BY key_digest',
    );
    expect(rows.map((r) => r.response_body).join('\n')).not.toContain(secret);
    expect(JSON.parse(rows[0]!.response_body)).toEqual({ webhookId: 'wh_1', secretFingerprint: 'a1b2c3d4' });
    expect(JSON.parse(rows[1]!.response_body)).toEqual({ error: 'webhook_limit_exceeded', message: 'm' });
    expect(JSON.parse(rows[2]!.response_body)).toEqual({
      runId: 'r1',
      secret: 'not a shown-once field here',
    });
    expect(await claimIdempotencyKey(ds, webhook, 'd', 'other', 60_000)).toEqual({
      kind: 'replay',
      response: { status: 201, headers: {}, body: rows[0]!.response_body },
    });
  });
});
