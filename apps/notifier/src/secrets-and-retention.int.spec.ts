import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { openDatabase } from '@openwop/platform-db';
import { createHostResolver, type HostConfig } from '@openwop/platform-nest';
import { createTestDatabase, type TestDatabase } from '@openwop/testing';
import {
  newWebhookSecret,
  parseWebhookSecretKeys,
  sealWebhookSecret,
  secretFingerprint,
  verifyDelivery,
  type LoadedWebhookKeyRing,
} from '@openwop/webhook-domain';
import { DeliveryWorker } from './delivery.worker';
import { notifierOptionsFromEnv } from './notifier.options';

const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const ringOf = (raw: string): LoadedWebhookKeyRing => ({
  ring: parseWebhookSecretKeys(raw, 'test'),
  source: 'env',
  from: 'test',
});

/**
 * The notifier's secrets at rest and its retention sweep on real Postgres (ADR 0028): plain-text
 * secrets of an earlier build and secrets sealed under an older key are resealed once under the
 * current key by two notifiers starting together, and deliveries still verify with the original
 * secret; a ciphertext moved onto another subscription is refused; old settled deliveries are
 * deleted in bounded batches by two instances at once while pending and young ones stay.
 */
describe('notifier: sealed secrets and delivery retention (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let server: Server;
  let port = 0;
  const received: { path: string; headers: Record<string, string | string[] | undefined>; body: string }[] =
    [];

  const worker = (keys: LoadedWebhookKeyRing, id: string, env: Record<string, string> = {}) =>
    new DeliveryWorker(
      ds,
      notifierOptionsFromEnv({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_PRUNE_EVERY_MS: '3600000', ...env }),
      createHostResolver(),
      { instanceId: id } as HostConfig,
      keys,
    );

  const subscribe = async (
    webhookId: string,
    tenant: string,
    stored: string,
    secret: string,
  ): Promise<void> =>
    void (await ds.query(
      `INSERT INTO webhook_subscriptions (webhook_id, tenant, url, events, tags, secret, secret_fingerprint, durable, created_by)
       VALUES ($1, $2, $3, '["run.completed"]'::jsonb, '[]'::jsonb, $4, $5, false, 'test')`,
      [webhookId, tenant, `http://127.0.0.1:${port}/${webhookId}`, stored, secretFingerprint(secret)],
    ));

  const deliver = async (
    deliveryId: string,
    webhookId: string,
    tenant: string,
    extra: { status?: string; ageMs?: number } = {},
  ): Promise<void> =>
    void (await ds.query(
      `INSERT INTO webhook_deliveries (delivery_id, webhook_id, tenant, run_id, event_id, sequence, event_type, body, status, max_attempts,
                                       due_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'r1', $1, 1, 'run.completed', $4, $5, 1, now(),
               now() - ($6 * interval '1 millisecond'), now() - ($6 * interval '1 millisecond'))`,
      [
        deliveryId,
        webhookId,
        tenant,
        JSON.stringify({ runId: 'r1', id: deliveryId }),
        extra.status ?? 'pending',
        extra.ageMs ?? 0,
      ],
    ));

  const storedSecret = async (webhookId: string): Promise<string> =>
    (
      await ds.query<{ secret: string }[]>('SELECT secret FROM webhook_subscriptions WHERE webhook_id = $1', [
        webhookId,
      ])
    )[0]!.secret;

  beforeAll(async () => {
    db = await createTestDatabase('notifier_secrets');
    ds = await openDatabase({ url: db.url });
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await ds?.destroy();
    await db?.drop();
  });

  it('reseals plain-text and older-key secrets once under the current key (two notifiers at once); deliveries verify with the original secrets', async () => {
    const plain = Array.from({ length: 150 }, (_, i) => ({
      id: `wh_plain_${i}`,
      secret: newWebhookSecret(),
    }));
    for (const p of plain) await subscribe(p.id, 't1', p.secret, p.secret);
    const old = { id: 'wh_old', secret: newWebhookSecret() };
    const k1 = ringOf(`k1:${K1}`).ring!;
    await subscribe(
      old.id,
      't1',
      sealWebhookSecret(k1, old.secret, { webhookId: old.id, tenant: 't1' }),
      old.secret,
    );

    const rotated = ringOf(`k2:${K2},k1:${K1}`);
    const [a, b] = await Promise.all([
      worker(rotated, 'a').resealSecrets(),
      worker(rotated, 'b').resealSecrets(),
    ]);
    expect(a + b).toBe(151);
    // idempotent: nothing is left to reseal
    expect(await worker(rotated, 'c').resealSecrets()).toBe(0);

    for (const s of [...plain.slice(0, 3), old]) {
      const stored = await storedSecret(s.id);
      expect(stored.startsWith('v1:k2:')).toBe(true);
      expect(stored).not.toContain(s.secret);
    }
    const leftovers = await ds.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM webhook_subscriptions WHERE secret NOT LIKE 'v1:k2:%'`,
    );
    expect(Number(leftovers[0]!.n)).toBe(0);

    // k1 can now leave the ring: the resealed secrets sign with what was shown at registration.
    await deliver('d_plain', plain[0]!.id, 't1');
    await deliver('d_old', old.id, 't1');
    expect(await worker(ringOf(`k2:${K2}`), 'a').drain()).toBe(2);
    for (const [path, secret] of [
      [`/${plain[0]!.id}`, plain[0]!.secret],
      [`/${old.id}`, old.secret],
    ] as const) {
      const got = received.find((r) => r.path === path);
      expect(got).toBeDefined();
      const headers = {
        timestamp: String(got!.headers['x-openwop-timestamp']),
        signature: String(got!.headers['x-openwop-signature']),
      };
      expect(verifyDelivery(secret, headers, got!.body, Math.floor(Date.now() / 1000))).toBe(true);
    }
    const statuses = await ds.query<{ status: string }[]>(
      `SELECT status FROM webhook_deliveries WHERE delivery_id IN ('d_plain', 'd_old')`,
    );
    expect(statuses.map((s) => s.status)).toEqual(['delivered', 'delivered']);
  });

  it('refuses a ciphertext moved onto another subscription: nothing is sent, the attempt fails, the breaker is untouched', async () => {
    const ring = ringOf(`k2:${K2}`);
    const victim = newWebhookSecret();
    await subscribe(
      'wh_victim',
      't1',
      sealWebhookSecret(ring.ring!, victim, { webhookId: 'wh_victim', tenant: 't1' }),
      victim,
    );
    // an attacker with write access to the table copies the victim's value onto their own row
    await subscribe('wh_thief', 't2', await storedSecret('wh_victim'), victim);
    await deliver('d_thief', 'wh_thief', 't2');
    const before = received.length;
    expect(await worker(ring, 'a').drain()).toBe(1);
    expect(received.slice(before).filter((r) => r.path === '/wh_thief')).toHaveLength(0);
    const [row] = await ds.query<{ status: string; last_error: string }[]>(
      `SELECT status, last_error FROM webhook_deliveries WHERE delivery_id = 'd_thief'`,
    );
    expect(row).toEqual({ status: 'failed', last_error: 'secret unreadable (not_authentic)' });
    const [sub] = await ds.query<{ consecutive_failures: number }[]>(
      `SELECT consecutive_failures FROM webhook_subscriptions WHERE webhook_id = 'wh_thief'`,
    );
    expect(sub!.consecutive_failures).toBe(0);
  });

  it('without a key ring (distributed mode) refuses to start while subscriptions exist, naming the setting', async () => {
    const none: LoadedWebhookKeyRing = {
      ring: undefined,
      source: 'none',
      from: 'OPENWOP_WEBHOOK_SECRET_KEYS is not set',
    };
    await expect(worker(none, 'a').resealSecrets()).rejects.toThrow(
      /OPENWOP_WEBHOOK_SECRET_KEYS is not set and \d+ webhook subscription\(s\) exist/,
    );
  });

  it('prunes settled deliveries past their retention in bounded batches, two instances at once; pending, in-flight and young rows stay', async () => {
    await ds.query('DELETE FROM webhook_deliveries');
    const day = 24 * 60 * 60 * 1000;
    await subscribe('wh_ret', 't1', 'f'.repeat(64), 'f'.repeat(64));
    for (let i = 0; i < 40; i++)
      await deliver(`old_delivered_${i}`, 'wh_ret', 't1', { status: 'delivered', ageMs: 8 * day });
    await deliver('old_failed', 'wh_ret', 't1', { status: 'failed', ageMs: 8 * day });
    await deliver('old_skipped', 'wh_ret', 't1', { status: 'skipped', ageMs: 8 * day });
    await deliver('young_delivered', 'wh_ret', 't1', { status: 'delivered', ageMs: 6 * day });
    await deliver('dead_10d', 'wh_ret', 't1', { status: 'dead', ageMs: 10 * day });
    await deliver('dead_31d', 'wh_ret', 't1', { status: 'dead', ageMs: 31 * day });
    await deliver('pending_old', 'wh_ret', 't1', { status: 'pending', ageMs: 60 * day });
    await ds.query(
      `UPDATE webhook_deliveries SET due_at = now() + interval '1 day' WHERE delivery_id = 'pending_old'`,
    );
    await deliver('in_flight_old', 'wh_ret', 't1', { status: 'in_flight', ageMs: 60 * day });
    await ds.query(
      `UPDATE webhook_deliveries SET due_at = now() + interval '1 day' WHERE delivery_id = 'in_flight_old'`,
    );

    const keys = ringOf(`k2:${K2}`);
    const env = { WEBHOOK_RETAIN_DELIVERED_MS: String(7 * day), WEBHOOK_RETAIN_DEAD_MS: String(30 * day) };
    const w1 = worker(keys, 'a', env);
    const w2 = worker(keys, 'b', env);
    // small batches, to see them bounded and shared
    Object.assign(w1, {
      options: { ...w1['options'], retention: { ...w1['options'].retention, batchSize: 4 } },
    });
    Object.assign(w2, {
      options: { ...w2['options'], retention: { ...w2['options'].retention, batchSize: 4 } },
    });
    const [p1, p2] = await Promise.all([w1.prune(), w2.prune()]);
    expect(p1 + p2).toBe(43);
    expect(await w1.prune()).toBe(0);
    const left = await ds.query<{ delivery_id: string }[]>(
      'SELECT delivery_id FROM webhook_deliveries ORDER BY delivery_id',
    );
    expect(left.map((r) => r.delivery_id)).toEqual([
      'dead_10d',
      'in_flight_old',
      'pending_old',
      'young_delivered',
    ]);
  });
});
