import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { callGateway as call, query } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

/** A request the receiver got: path, headers (lower case) and the raw body. */
interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * A local plain-HTTP receiver. `hold(path)` makes it keep requests to `path` open (never answer)
 * until released, to catch a delivery in flight; every other request gets `204`.
 */
class Receiver {
  readonly received: Received[] = [];
  connections = 0;
  private readonly held = new Set<string>();
  private readonly open = new Set<Socket>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        this.received.push({ path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
        if (this.held.has(req.url ?? '')) return; // in flight until its sender dies
        res.writeHead(204).end();
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.connections++;
      this.open.add(s);
      s.on('close', () => this.open.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  hold(path: string): void {
    this.held.add(path);
  }

  release(path: string): void {
    this.held.delete(path);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The subscriber's recipe of webhooks.md §Verification, written here independently of the host's code. */
function verifyDelivery(
  secret: string,
  h: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string,
  nowSeconds: number,
): boolean {
  const ts = Number(h.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > 300) return false;
  const sig = (h.signature ?? '').replace(/^sha256=/, '');
  const expected = createHmac('sha256', secret).update(`${ts}.${rawBody}`).digest('hex');
  return (
    sig.length === expected.length && timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(sig, 'hex'))
  );
}

const body = (r: Received) =>
  JSON.parse(r.body) as {
    runId: string;
    workspaceId: string;
    event: { type: string; sequence: number; runId: string };
  };

/**
 * Webhooks (webhooks.md, RFC 0083/0093) end to end on real Kafka and Postgres, both modes: a local
 * receiver (allow-listed loopback) gets deliveries that verify with the secret shown once; a tenant
 * hears only its own runs; the SSRF guard refuses private and metadata addresses at registration,
 * and a name that rebinds to loopback after registration at delivery; a durable delivery outlives
 * kill -9 of the notifier making it and arrives, deduplicated by (webhook, sequence) here.
 */
describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('webhooks, %s mode', (mode) => {
  let hut: HostUnderTest;
  const receiver = new Receiver();
  const gw = () => hut.host.gateways[0]!;

  // The names the host processes resolve through the test's DNS (fake-dns.preload.cjs).
  const dnsDir = mkdtempSync(join(tmpdir(), 'webhooks-dns-'));
  const dnsFile = join(dnsDir, 'dns.json');
  const setDns = (names: Record<string, string[]>) => writeFileSync(dnsFile, JSON.stringify(names));
  // rebind.test is public until the test rebinds it to loopback, after registration (RFC 0093 §A.1).
  const NAMES = {
    'rebind.test': ['93.184.216.34'],
    'internal.test': ['10.1.2.3'],
    'bench.test': ['93.184.216.34', '198.18.0.9'],
  };

  beforeAll(async () => {
    await receiver.start();
    setDns(NAMES);
    hut = await MODES[mode]({
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${resolve(__dirname, 'fake-dns.preload.cjs')}`,
      FAKE_DNS_FILE: dnsFile,
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_MAX_SUBSCRIPTIONS_PER_TENANT: '4',
      WEBHOOK_DELIVERY_TIMEOUT_MS: '2000',
      WEBHOOK_LEASE_MS: '3500',
      WEBHOOK_POLL_MS: '200',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '400',
      WEBHOOK_MAX_ATTEMPTS: '3',
    });
  }, 180_000);
  afterAll(async () => {
    await hut?.stop();
    await receiver.stop();
    rmSync(dnsDir, { recursive: true, force: true });
  }, 60_000);

  const register = (payload: Record<string, unknown>, key: string = TEST_KEYS.t1) =>
    call(gw(), 'POST', '/v1/webhooks', payload, key);

  const completedRun = async (key: string = TEST_KEYS.t1, tags?: string[]): Promise<string> => {
    const created = await call(
      gw(),
      'POST',
      '/v1/runs',
      { workflowId: 'conformance-noop', ...(tags ? { tags } : {}) },
      key,
    );
    expect(created.status).toBe(201);
    const runId = created.json.runId as string;
    await waitFor(
      async () => (await call(gw(), 'GET', `/v1/runs/${runId}`, undefined, key)).json.status === 'completed',
      {
        timeoutMs: 30_000,
        what: `run ${runId} completed`,
      },
    );
    return runId;
  };

  it('delivers signed events that verify with the secret shown once, to the tenant of the run only', async () => {
    const reg = await register({
      url: `http://127.0.0.1:${receiver.port}/t1`,
      events: ['run.started', 'run.completed'],
    });
    expect(reg.status).toBe(201);
    const { webhookId, secret, secretFingerprint, signatureAlgorithm } = reg.json as {
      webhookId: string;
      secret: string;
      secretFingerprint: string;
      signatureAlgorithm: string;
    };
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureAlgorithm).toBe('v1');
    const other = await register(
      { url: `http://127.0.0.1:${receiver.port}/t2`, events: ['run.started', 'run.completed'] },
      TEST_KEYS.t2,
    );
    expect(other.status).toBe(201);
    const tagged = await register({
      url: `http://127.0.0.1:${receiver.port}/tagged`,
      events: ['run.completed'],
      tags: ['prod'],
    });
    expect(tagged.status).toBe(201);

    // The secret is shown once: reads carry the fingerprint only.
    const read = await call(gw(), 'GET', `/v1/webhooks/${webhookId}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(expect.objectContaining({ webhookId, secretFingerprint, tenantId: 't1' }));
    expect(JSON.stringify(read.json)).not.toContain(secret);
    const listed = await call(gw(), 'GET', '/v1/webhooks');
    expect(JSON.stringify(listed.json)).not.toContain(secret);
    expect((listed.json.webhooks as { webhookId: string }[]).map((w) => w.webhookId)).toContain(webhookId);
    expect((listed.json.webhooks as { webhookId: string }[]).map((w) => w.webhookId)).not.toContain(
      other.json.webhookId,
    );
    // Another tenant reads it as absent.
    expect((await call(gw(), 'GET', `/v1/webhooks/${webhookId}`, undefined, TEST_KEYS.t2)).status).toBe(404);
    // At rest the secret is sealed under the host's key ring (ADR 0028), never stored as it is.
    const [stored] = await query<{ secret: string }>(
      hut.db.url,
      'SELECT secret FROM webhook_subscriptions WHERE webhook_id = $1',
      [webhookId],
    );
    expect(stored?.secret).toMatch(/^v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(stored?.secret).not.toContain(secret);

    const runId = await completedRun();
    const ours = await waitFor(
      () => {
        const got = receiver.at('/t1').filter((r) => body(r).runId === runId);
        return got.length >= 2 ? got : undefined;
      },
      { timeoutMs: 30_000, what: 'both deliveries of the run' },
    );
    expect(ours.map((r) => body(r).event.type).sort()).toEqual(['run.completed', 'run.started']);
    for (const r of ours) {
      expect(r.headers['x-openwop-webhook-id']).toBe(webhookId);
      expect(r.headers['x-openwop-signature-algorithm']).toBe('v1');
      expect(r.headers['x-openwop-event-type']).toBe(body(r).event.type);
      // RFC 0165 §C.1: the OpenWOP-* family beside it, the same five values.
      for (const name of ['webhook-id', 'event-type', 'timestamp', 'signature', 'signature-algorithm']) {
        expect(r.headers[`openwop-${name}`]).toBeDefined();
        expect(r.headers[`openwop-${name}`]).toBe(r.headers[`x-openwop-${name}`]);
      }
      expect(
        verifyDelivery(
          secret,
          { timestamp: r.headers['openwop-timestamp'], signature: r.headers['openwop-signature'] },
          r.body,
          Math.floor(Date.now() / 1000),
        ),
      ).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toMatch(/^openwop-webhook-dispatcher\//);
      expect(body(r).workspaceId).toBe('t1');
      const ok = verifyDelivery(
        secret,
        { timestamp: r.headers['x-openwop-timestamp'], signature: r.headers['x-openwop-signature'] },
        r.body,
        Math.floor(Date.now() / 1000),
      );
      expect(ok).toBe(true);
      expect(
        verifyDelivery(
          '0'.repeat(64),
          { timestamp: r.headers['x-openwop-timestamp'], signature: r.headers['x-openwop-signature'] },
          r.body,
          Math.floor(Date.now() / 1000),
        ),
      ).toBe(false);
    }
    // t2's subscription hears nothing of t1's run; its own run reaches it.
    const t2Run = await completedRun(TEST_KEYS.t2);
    await waitFor(() => receiver.at('/t2').some((r) => body(r).runId === t2Run), {
      timeoutMs: 30_000,
      what: "t2's own delivery",
    });
    expect(receiver.at('/t2').some((r) => body(r).runId === runId)).toBe(false);
    expect(receiver.at('/t1').some((r) => body(r).runId === t2Run)).toBe(false);
    // Tags: only the run tagged `prod` reaches the tagged subscription. Its rows are recorded with
    // the untagged subscription's, in one transaction per event, so by now both would exist.
    const prodRun = await completedRun(TEST_KEYS.t1, ['prod', 'eu']);
    await waitFor(() => receiver.at('/tagged').some((r) => body(r).runId === prodRun), {
      timeoutMs: 30_000,
      what: 'the tagged delivery',
    });
    await waitFor(
      () =>
        receiver.at('/t1').some((r) => body(r).runId === prodRun && body(r).event.type === 'run.completed'),
      { timeoutMs: 30_000, what: 'the untagged delivery of the tagged run' },
    );
    const taggedRows = await call(
      gw(),
      'GET',
      `/v1/webhook-deliveries?webhookId=${tagged.json.webhookId as string}`,
    );
    expect((taggedRows.json.deliveries as { runId: string }[]).map((d) => d.runId)).toEqual([prodRun]);
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${tagged.json.webhookId as string}`)).status).toBe(204);
    const delivered = await call(gw(), 'GET', `/v1/webhook-deliveries?webhookId=${webhookId}&runId=${runId}`);
    expect((delivered.json.deliveries as { status: string }[]).map((d) => d.status)).toEqual([
      'delivered',
      'delivered',
    ]);

    expect((await call(gw(), 'DELETE', `/v1/webhooks/${webhookId}?tenantId=t2`)).status).toBe(403);
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${webhookId}`, undefined, TEST_KEYS.t2)).status).toBe(
      404,
    );
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${webhookId}`)).status).toBe(204);
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${webhookId}`)).json.error).toBe(
      'subscription_not_found',
    );
    expect(
      (await call(gw(), 'DELETE', `/v1/webhooks/${other.json.webhookId as string}`, undefined, TEST_KEYS.t2))
        .status,
    ).toBe(204);
  }, 120_000);

  it('refuses private, loopback, link-local and metadata destinations at registration', async () => {
    for (const url of [
      'http://169.254.169.254/',
      'https://169.254.169.254/computeMetadata/v1/',
      'http://10.0.0.1/',
      'https://10.0.0.1/',
      'https://192.168.1.10/hook',
      'https://[::1]/',
      'https://localhost/',
      'https://metadata.google.internal/',
      'http://example.com/',
      // IANA special-purpose ranges that are not globally reachable, in URL spellings.
      'https://198.18.0.1/',
      'https://0xc6.0x12.0.1/',
      'https://192.0.2.1/',
      'https://203.0.113.9/',
      'https://100.64.0.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:8.8.8.8]/',
      'https://[fec0::1]/',
      'https://[2001:db8::1]/',
      'https://[64:ff9b::a9fe:a9fe]/',
    ]) {
      const reg = await register({ url, events: ['run.completed'] });
      expect({ url, status: reg.status, error: reg.json.error }).toEqual({
        url,
        status: 400,
        error: 'webhook_url_rejected',
      });
    }
    // A name that resolves to a private address is refused without saying which address.
    for (const host of ['internal.test', 'bench.test']) {
      const reg = await register({ url: `https://${host}/hook`, events: ['run.completed'] });
      expect(reg.status).toBe(400);
      expect(reg.json).toEqual(
        expect.objectContaining({
          error: 'webhook_url_rejected',
          details: { reason: 'denied_address', detail: `host ${host} is not a public address` },
        }),
      );
      expect(JSON.stringify(reg.json)).not.toMatch(/10\.1\.2\.3|198\.18|private|benchmarking/);
    }
    expect((await register({ events: ['run.completed'] })).json.error).toBe('validation_error');
    expect((await register({ url: `http://127.0.0.1:${receiver.port}/x`, events: [] })).json.error).toBe(
      'validation_error',
    );
    expect(
      (await register({ url: `http://127.0.0.1:${receiver.port}/x`, events: ['no.such.event'] })).json.error,
    ).toBe('validation_error');
    expect(
      (
        await register({
          url: `http://127.0.0.1:${receiver.port}/x`,
          events: ['run.completed'],
          tenantId: 't2',
        })
      ).status,
    ).toBe(403);
    // Nothing was stored by any refusal.
    const rows = await query<{ n: string }>(
      hut.db.url,
      "SELECT count(*)::text AS n FROM webhook_subscriptions WHERE url LIKE '%/x' OR url LIKE '%169.254%'",
    );
    expect(rows[0]!.n).toBe('0');
  }, 60_000);

  it('refuses at delivery a name that now resolves to loopback, connecting nowhere; the dead letter can be replayed', async () => {
    const reg = await register({
      url: `https://rebind.test:${receiver.port}/rebind`,
      events: ['run.completed'],
      durable: true,
    });
    expect(reg.status).toBe(201); // public at registration
    const webhookId = reg.json.webhookId as string;
    // The name's owner points it at loopback once it is registered.
    setDns({ ...NAMES, 'rebind.test': ['127.0.0.1'] });
    const connectionsBefore = receiver.connections;
    const runId = await completedRun();
    const dead = await waitFor(
      async () => {
        const list = await call(gw(), 'GET', `/v1/webhook-deliveries?status=dead&webhookId=${webhookId}`);
        return (
          list.json.deliveries as { runId: string; lastError: string; attempts: number; deliveryId: string }[]
        ).find((d) => d.runId === runId);
      },
      { timeoutMs: 30_000, what: 'the rebinding delivery dead-lettered' },
    );
    // What the name resolved to is not the tenant's to learn, not even through a delivery's error.
    expect(dead.lastError).toBe('egress refused: host rebind.test is not a public address');
    expect(dead.attempts).toBe(3);
    expect(receiver.at('/rebind')).toEqual([]);
    expect(receiver.connections).toBe(connectionsBefore);
    const replayed = await call(gw(), 'POST', `/v1/webhook-deliveries/${dead.deliveryId}:replay`);
    expect(replayed.status).toBe(200);
    expect(replayed.json).toEqual(
      expect.objectContaining({ deliveryId: dead.deliveryId, status: 'pending', attempts: 0 }),
    );
    expect(
      (await call(gw(), 'POST', `/v1/webhook-deliveries/${dead.deliveryId}:replay`, undefined, TEST_KEYS.t2))
        .status,
    ).toBe(404);
    // The replay is attempted and refused again; that fourth failure in a row opens the circuit
    // (webhooks.md §Circuit breaker), which holds a durable delivery instead of dropping it.
    await waitFor(
      async () => {
        const list = await call(gw(), 'GET', `/v1/webhook-deliveries?webhookId=${webhookId}`);
        const d = (list.json.deliveries as { deliveryId: string; status: string; lastError: string }[]).find(
          (x) => x.deliveryId === dead.deliveryId,
        );
        return d?.status === 'pending' && d.lastError === 'circuit open';
      },
      { timeoutMs: 30_000, what: 'the replayed delivery refused again, then held by the open circuit' },
    );
    expect((await call(gw(), 'GET', `/v1/webhooks/${webhookId}`)).json.circuit).toBe('open');
    expect(receiver.connections).toBe(connectionsBefore);
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${webhookId}`)).status).toBe(204);
  }, 90_000);

  /** A registration with an `Idempotency-Key`, through the gateway at `gateway`. */
  const registerKeyed = async (gateway: string, payload: unknown, idempotencyKey: string, apiKey: string) => {
    const res = await fetch(`${gateway}/v1/webhooks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(payload),
    });
    return {
      status: res.status,
      replay: res.headers.get('openwop-idempotent-replay'),
      json: (await res.json()) as Record<string, unknown>,
    };
  };

  it('a registration replayed under its Idempotency-Key answers without the secret, which no record holds', async () => {
    const payload = { url: `http://127.0.0.1:${receiver.port}/keyed`, events: ['run.completed'] };
    const idempotencyKey = `wh-${Date.now()}`;
    const first = await registerKeyed(gw(), payload, idempotencyKey, TEST_KEYS.t1);
    expect(first.status).toBe(201);
    expect(first.replay).toBe('false');
    const secret = first.json.secret as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);

    // The stored answer: everything but the secret, nowhere in the table.
    const stored = await query<{ response_status: number; response_body: string }>(
      hut.db.url,
      "SELECT response_status, response_body FROM idempotency_records WHERE endpoint = 'POST /v1/webhooks' AND state = 'completed'",
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]!.response_status).toBe(201);
    const { secret: _shown, ...withoutSecret } = first.json;
    expect(JSON.parse(stored[0]!.response_body)).toEqual(withoutSecret);
    const anywhere = await query<{ n: string }>(
      hut.db.url,
      "SELECT count(*)::text AS n FROM idempotency_records WHERE position($1 in coalesce(response_body, '') || coalesce(response_headers::text, '')) > 0",
      [secret],
    );
    expect(anywhere[0]!.n).toBe('0');

    // Another key of the tenant, the same Idempotency-Key and body, on another gateway where there is one:
    // the same status and body, the fingerprint, and no secret.
    const other = hut.host.gateways[hut.host.gateways.length - 1]!;
    for (const [gateway, apiKey] of [
      [other, TEST_KEYS.t1b],
      [gw(), TEST_KEYS.t1],
    ] as const) {
      const replayed = await registerKeyed(gateway, payload, idempotencyKey, apiKey);
      expect(replayed.status).toBe(201);
      expect(replayed.replay).toBe('true');
      expect(replayed.json).toEqual(withoutSecret);
      expect(replayed.json.secretFingerprint).toBe(first.json.secretFingerprint);
      expect(JSON.stringify(replayed.json)).not.toContain(secret);
    }
    const subscriptions = await query<{ n: string }>(
      hut.db.url,
      'SELECT count(*)::text AS n FROM webhook_subscriptions WHERE url = $1',
      [payload.url],
    );
    expect(subscriptions[0]!.n).toBe('1'); // replayed, not registered again
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${first.json.webhookId as string}`)).status).toBe(204);
  }, 60_000);

  it('caps the subscriptions of a tenant, advertised in discovery, exactly under concurrent registrations on every gateway', async () => {
    const discovery = (await (await fetch(`${gw()}/.well-known/openwop`)).json()) as {
      extensions: { limits: Record<string, number> };
    };
    expect(discovery.extensions.limits.maxWebhookSubscriptionsPerTenant).toBe(4);
    const t2Count = async () =>
      Number(
        (
          await query<{ n: string }>(
            hut.db.url,
            "SELECT count(*)::text AS n FROM webhook_subscriptions WHERE tenant = 't2'",
          )
        )[0]!.n,
      );
    expect(await t2Count()).toBe(0);
    // t1 holds one: its subscriptions do not count against t2's cap.
    const t1Own = await register({
      url: `http://127.0.0.1:${receiver.port}/cap-t1`,
      events: ['run.completed'],
    });
    expect(t1Own.status).toBe(201);

    const gateways = hut.host.gateways;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(
          gateways[i % gateways.length]!,
          'POST',
          '/v1/webhooks',
          { url: `http://127.0.0.1:${receiver.port}/cap-${i}`, events: ['run.completed'] },
          TEST_KEYS.t2,
        ),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(created).toHaveLength(4);
    expect(refused).toHaveLength(8);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.json).toEqual(
        expect.objectContaining({ error: 'webhook_limit_exceeded', details: { limit: 4, scope: 'tenant' } }),
      );
      expect(r.json.message).toEqual(expect.stringContaining('4 webhook subscriptions'));
    }
    expect(await t2Count()).toBe(4);

    // Unregistering frees a place, which one registration then takes.
    const freed = created[0]!.json.webhookId as string;
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${freed}`, undefined, TEST_KEYS.t2)).status).toBe(204);
    const again = await call(
      gw(),
      'POST',
      '/v1/webhooks',
      { url: `http://127.0.0.1:${receiver.port}/cap-again`, events: ['run.completed'] },
      TEST_KEYS.t2,
    );
    expect(again.status).toBe(201);
    const past = await call(
      gw(),
      'POST',
      '/v1/webhooks',
      { url: `http://127.0.0.1:${receiver.port}/cap-past`, events: ['run.completed'] },
      TEST_KEYS.t2,
    );
    expect(past.status).toBe(422);
    expect(await t2Count()).toBe(4);

    for (const id of [
      ...created.slice(1).map((a) => a.json.webhookId as string),
      again.json.webhookId as string,
    ]) {
      expect((await call(gw(), 'DELETE', `/v1/webhooks/${id}`, undefined, TEST_KEYS.t2)).status).toBe(204);
    }
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${t1Own.json.webhookId as string}`)).status).toBe(204);
  }, 60_000);

  it('a durable delivery outlives kill -9 of the notifier making it and arrives, deduplicated by (webhook, sequence)', async () => {
    receiver.hold('/durable');
    const reg = await register({
      url: `http://127.0.0.1:${receiver.port}/durable`,
      events: ['run.completed'],
      durable: true,
    });
    expect(reg.status).toBe(201);
    const { webhookId, secret } = reg.json as { webhookId: string; secret: string };
    const runId = await completedRun();
    // The first attempt is in flight (held open here): find the process that claimed it and kill it.
    await waitFor(() => receiver.at('/durable').some((r) => body(r).runId === runId), {
      timeoutMs: 30_000,
      what: 'the first attempt in flight',
    });
    const [row] = await query<{ claimed_by: string; attempts: number; delivery_id: string }>(
      hut.db.url,
      'SELECT claimed_by, attempts, delivery_id FROM webhook_deliveries WHERE webhook_id = $1 AND run_id = $2',
      [webhookId, runId],
    );
    expect(row).toEqual(expect.objectContaining({ attempts: 1 }));
    const pid = Number(/^pid:(\d+)@/.exec(row!.claimed_by)?.[1]);
    const victim = hut.host.processes.find((p) => p.child.pid === pid);
    expect(victim?.name).toBe(mode === 'embedded' ? 'embedded' : 'notifier');
    await victim!.kill('SIGKILL');
    hut.host.processes.splice(hut.host.processes.indexOf(victim!), 1);
    receiver.release('/durable');
    // Embedded: the host itself died, so it starts again; distributed: the other notifier takes over.
    if (mode === 'embedded') await hut.host.restart('embedded');

    await waitFor(
      async () => {
        const list = await call(gw(), 'GET', `/v1/webhook-deliveries?webhookId=${webhookId}&runId=${runId}`);
        return (list.json.deliveries as { status: string }[])[0]?.status === 'delivered';
      },
      { timeoutMs: 60_000, what: 'the delivery delivered after the kill' },
    );
    const got = receiver.at('/durable').filter((r) => body(r).runId === runId);
    expect(got.length).toBeGreaterThanOrEqual(2); // the lost attempt and the one that arrived
    for (const r of got) {
      expect(
        verifyDelivery(
          secret,
          { timestamp: r.headers['x-openwop-timestamp'], signature: r.headers['x-openwop-signature'] },
          r.body,
          Math.floor(Date.now() / 1000),
        ),
      ).toBe(true);
      expect(r.headers['x-openwop-delivery-id']).toBe(row!.delivery_id);
    }
    expect(got.map((r) => r.headers['x-openwop-delivery-attempt'])).toEqual(['1', '2']);
    // The receiver's dedupe key (webhook id, run, sequence) sees one event.
    const unique = new Set(
      got.map((r) => `${r.headers['x-openwop-webhook-id']}|${body(r).runId}|${body(r).event.sequence}`),
    );
    expect(unique.size).toBe(1);
    expect((await call(gw(), 'DELETE', `/v1/webhooks/${webhookId}`)).status).toBe(204);
  }, 150_000);
});
