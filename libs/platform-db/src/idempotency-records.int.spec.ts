import type { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import { openDatabase } from './data-source';
import {
  claimIdempotencyKey,
  pruneIdempotencyRecords,
  releaseIdempotencyKey,
  settleIdempotencyKey,
  type IdempotencyScope,
} from './idempotency-records';

describe('idempotency records (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let n = 0;
  const scope = (tenant = 't1'): IdempotencyScope => ({
    tenant,
    endpoint: 'POST /v1/runs',
    keyDigest: `k${++n}`,
  });
  const created = { status: 201, headers: { location: 'http://h/v1/runs/r1' }, body: '{"runId":"r1"}' };

  beforeAll(async () => {
    db = await createTestDatabase('idempotency_records');
    ds = await openDatabase({ url: db.url });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('one claim executes; the same digest then replays the stored response and another digest is a mismatch', async () => {
    const s = scope();
    expect(await claimIdempotencyKey(ds, s, 'd1', 'owner-a', 60_000)).toEqual({ kind: 'claimed' });
    expect(await claimIdempotencyKey(ds, s, 'd1', 'owner-b', 60_000)).toMatchObject({ kind: 'in-flight' });
    expect(await settleIdempotencyKey(ds, s, 'owner-a', 'completed', created)).toBe(true);
    expect(await claimIdempotencyKey(ds, s, 'd1', 'owner-b', 60_000)).toEqual({
      kind: 'replay',
      response: created,
    });
    expect(await claimIdempotencyKey(ds, s, 'd2', 'owner-b', 60_000)).toEqual({ kind: 'mismatch' });
  });

  it('concurrent claims of one key: exactly one is told to execute', async () => {
    const s = scope();
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => claimIdempotencyKey(ds, s, 'd', `owner-${i}`, 60_000)),
    );
    expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c.kind === 'in-flight')).toHaveLength(7);
  });

  it("keys are scoped by tenant: another tenant's same key is its own record", async () => {
    const s = scope('t1');
    await claimIdempotencyKey(ds, s, 'd1', 'owner-a', 60_000);
    await settleIdempotencyKey(ds, s, 'owner-a', 'completed', created);
    expect(await claimIdempotencyKey(ds, { ...s, tenant: 't2' }, 'd-other', 'owner-b', 60_000)).toEqual({
      kind: 'claimed',
    });
  });

  it('a retryable failure is recorded but never replayed: the retry claims the key again and its success replaces it', async () => {
    const s = scope();
    await claimIdempotencyKey(ds, s, 'd1', 'owner-a', 60_000);
    await settleIdempotencyKey(ds, s, 'owner-a', 'retryable-failure', {
      status: 503,
      headers: {},
      body: '{"error":"unavailable"}',
    });
    const [recorded] = await ds.query<{ state: string; response_status: number }[]>(
      'SELECT state, response_status FROM idempotency_records WHERE key_digest = $1',
      [s.keyDigest],
    );
    expect(recorded).toEqual({ state: 'retryable-failure', response_status: 503 });
    expect(await claimIdempotencyKey(ds, s, 'd1', 'owner-b', 60_000)).toEqual({ kind: 'claimed' });
    expect(await settleIdempotencyKey(ds, s, 'owner-a', 'completed', created)).toBe(false); // the old owner lost the key
    expect(await settleIdempotencyKey(ds, s, 'owner-b', 'completed', created)).toBe(true);
    expect(await claimIdempotencyKey(ds, s, 'd1', 'owner-c', 60_000)).toEqual({
      kind: 'replay',
      response: created,
    });
  });

  it('a claim whose lease ran out (a crashed owner) is taken over by one request only', async () => {
    const s = scope();
    expect(await claimIdempotencyKey(ds, s, 'd1', 'crashed', 1)).toEqual({ kind: 'claimed' });
    await ds.query(
      "UPDATE idempotency_records SET lease_expires_at = now() - interval '1 second' WHERE key_digest = $1",
      [s.keyDigest],
    );
    const claims = await Promise.all([
      claimIdempotencyKey(ds, s, 'd1', 'owner-x', 60_000),
      claimIdempotencyKey(ds, s, 'd1', 'owner-y', 60_000),
    ]);
    expect(claims.map((c) => c.kind).sort()).toEqual(['claimed', 'in-flight']);
  });

  it('a released claim (a malformed request) leaves no record', async () => {
    const s = scope();
    await claimIdempotencyKey(ds, s, 'd1', 'owner-a', 60_000);
    await releaseIdempotencyKey(ds, s, 'owner-a');
    expect(await claimIdempotencyKey(ds, s, 'd2', 'owner-b', 60_000)).toEqual({ kind: 'claimed' });
  });

  it('prunes records past the retention window, and an expired record counts as absent', async () => {
    const s = scope();
    await claimIdempotencyKey(ds, s, 'd1', 'owner-a', 60_000);
    await settleIdempotencyKey(ds, s, 'owner-a', 'completed', created);
    await ds.query(
      "UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE key_digest = $1",
      [s.keyDigest],
    );
    expect(await claimIdempotencyKey(ds, s, 'd-new', 'owner-b', 60_000)).toEqual({ kind: 'claimed' });
    await ds.query(
      "UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE key_digest = $1",
      [s.keyDigest],
    );
    const fresh = scope();
    await claimIdempotencyKey(ds, fresh, 'd1', 'owner-a', 60_000);
    expect(await pruneIdempotencyRecords(ds)).toBeGreaterThanOrEqual(1);
    const left = await ds.query<{ key_digest: string }[]>(
      'SELECT key_digest FROM idempotency_records WHERE key_digest IN ($1, $2)',
      [s.keyDigest, fresh.keyDigest],
    );
    expect(left).toEqual([{ key_digest: fresh.keyDigest }]);
  });
});
