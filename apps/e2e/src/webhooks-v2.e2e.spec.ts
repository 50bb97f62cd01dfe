import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { sendJson } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// Issue 30 items 7, 6 and 8, both modes, with a real local HTTP receiver:
// - v2 webhooks (webhooks.md, RFC 0165, RFC 0201): the five OpenWOP-* headers beside X-openwop-*,
//   a generated secret returned once and a supplied one never echoed, 400 webhook_url_rejected on
//   both majors, Standard Webhooks signing on opt-in after one endpoint verification, with a
//   webhook-id stable across the attempts of one delivery; secret rotation with an overlap window
//   (served, not advertised: the v2 webhooks record is not);
// - callback delivery (interrupt.md §Callback delivery): callbackUrl through the egress guard at
//   createRun (400 validation_error, field callbackUrl), a notice per interrupt, no redirect;
// - auth-scoped discovery (RFC 0011): a key sees only what its scopes reach.

interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * A local receiver. `/verify…` paths echo a verification challenge (`/verify-wrong` a wrong one);
 * `/redirect…` paths answer 302 to `/landed`; `/flaky…` fail the first attempt of each webhook-id
 * with 500; everything else gets 204.
 */
class Receiver {
  readonly received: Received[] = [];
  private readonly failed = new Set<string>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const path = req.url ?? '';
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ path, headers, body });
        const parsed = safeJson(body);
        if (path.startsWith('/redirect')) {
          res.writeHead(302, { location: '/landed' }).end();
        } else if (path.startsWith('/verify') && parsed?.type === 'openwop.webhook.verification') {
          const challenge = path.startsWith('/verify-wrong') ? 'not-the-challenge' : parsed.challenge;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge }));
        } else if (path.startsWith('/verify-flaky') && !this.failed.has(headers['webhook-id'] ?? '')) {
          this.failed.add(headers['webhook-id'] ?? '');
          res.writeHead(500).end();
        } else {
          res.writeHead(204).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The OpenWOP `v1` recipe (webhooks.md §Verification), written here independently of the host. */
function verifyV1(secret: string, h: Record<string, string>, rawBody: string): boolean {
  const ts = Number(h['openwop-timestamp']);
  if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > 300) return false;
  const sig = (h['openwop-signature'] ?? '').replace(/^sha256=/, '');
  const expected = createHmac('sha256', secret).update(`${ts}.${rawBody}`).digest('hex');
  return sig.length === 64 && timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(sig, 'hex'));
}

/** The Standard Webhooks 1.0.0 receiver recipe, written here independently of the host. */
function verifyStandardWebhooks(secret: string, h: Record<string, string>, rawBody: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const id = h['webhook-id'] ?? '';
  const ts = Number(h['webhook-timestamp']);
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(id) || Math.abs(Date.now() / 1000 - ts) > 300) return false;
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${rawBody}`).digest();
  return (h['webhook-signature'] ?? '').split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    const given = Buffer.from(sig ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The rotation overlap the hosts under test run with. */
const OVERLAP_SECONDS = 6;

const FIVE = ['Webhook-Id', 'Event-Type', 'Timestamp', 'Signature', 'Signature-Algorithm'];

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'v2 webhooks, callbacks, scoped discovery, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    const rx = new Receiver();
    const gw = () => hut.host.gateways[0]!;

    beforeAll(async () => {
      await rx.start();
      hut = await MODES[mode]({
        WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        WEBHOOK_DELIVERY_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_BASE_MS: '200',
        WEBHOOK_RETRY_MAX_MS: '1000',
        WEBHOOK_POLL_MS: '200',
        WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS: String(OVERLAP_SECONDS),
      });
    });
    afterAll(async () => {
      await hut?.stop();
      await rx.stop();
    }, 60_000);

    interface Answer {
      readonly status: number;
      readonly headers: Headers;
      readonly json: Record<string, unknown>;
    }

    /** A gateway call; `version` sets `OpenWOP-Version` (an unversioned path is major 2). */
    async function call(
      method: string,
      path: string,
      options: { body?: unknown; key?: string | null; version?: string; idempotencyKey?: string } = {},
    ): Promise<Answer> {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.key !== null) headers.authorization = `Bearer ${options.key ?? TEST_KEYS.t1}`;
      if (options.version !== undefined) headers['openwop-version'] = options.version;
      if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
      const { body: json, ...answer } = await sendJson(`${gw()}${path}`, method, headers, options.body);
      return { ...answer, json };
    }

    const webhookCount = async () => ((await call('GET', '/v1/webhooks')).json.webhooks as unknown[]).length;
    const runCount = async (key: string) =>
      ((await call('GET', '/v1/runs?limit=100', { key })).json.runs as unknown[]).length;

    const completedRun = async (): Promise<string> => {
      const created = await call('POST', '/runs', { body: { workflowId: 'conformance-noop' } });
      expect(created.status).toBe(201);
      const runId = created.json.runId as string;
      await waitFor(async () => (await call('GET', `/runs/${runId}`)).json.status === 'completed', {
        timeoutMs: 30_000,
        what: `run ${runId} completed`,
      });
      return runId;
    };

    const deliveriesOf = (path: string, runId: string, type: string) =>
      rx.at(path).filter((r) => {
        const b = safeJson(r.body) as { runId?: string; event?: { type?: string } } | undefined;
        return b?.runId === runId && b.event?.type === type;
      });

    describe('v2 webhooks (item 7)', () => {
      it('POST /webhooks: a generated secret is returned once, a supplied one never; each delivery carries the five OpenWOP-* headers, equal to X-openwop-*, and verifies', async () => {
        const generated = await call('POST', '/webhooks', {
          body: { url: rx.url('/gen'), events: ['run.completed'] },
        });
        expect(generated.status).toBe(201);
        expect(generated.headers.get('openwop-version')).toMatch(/^2\./);
        const genSecret = generated.json.secret as string;
        expect(genSecret).toMatch(/^[0-9a-f]{64}$/);

        const supplied = `supplied-${randomBytes(16).toString('hex')}`;
        const given = await call('POST', '/webhooks', {
          body: { url: rx.url('/sup'), events: ['run.completed'], secret: supplied },
        });
        expect(given.status).toBe(201);
        expect(given.json).not.toHaveProperty('secret');
        expect(JSON.stringify(given.json)).not.toContain(supplied);
        expect(
          JSON.stringify((await call('GET', `/webhooks/${given.json.webhookId as string}`)).json),
        ).not.toContain(supplied);

        const runId = await completedRun();
        for (const [path, secret, webhookId] of [
          ['/gen', genSecret, generated.json.webhookId],
          ['/sup', supplied, given.json.webhookId],
        ] as [string, string, string][]) {
          const [d] = await waitFor(
            () => {
              const found = deliveriesOf(path, runId, 'run.completed');
              return found.length > 0 ? found : undefined;
            },
            { timeoutMs: 20_000, what: `run.completed at ${path}` },
          );
          for (const name of FIVE) {
            expect(d!.headers[`openwop-${name.toLowerCase()}`]).toBeDefined();
            expect(d!.headers[`x-openwop-${name.toLowerCase()}`]).toBe(
              d!.headers[`openwop-${name.toLowerCase()}`],
            );
          }
          expect(d!.headers['openwop-webhook-id']).toBe(webhookId);
          expect(d!.headers['openwop-event-type']).toBe('run.completed');
          expect(d!.headers['openwop-signature-algorithm']).toBe('v1');
          expect(verifyV1(secret, d!.headers, d!.body)).toBe(true);
          expect(verifyV1(`${secret}x`, d!.headers, d!.body)).toBe(false);
          // Not opted in: no Standard Webhooks header.
          expect(Object.keys(d!.headers).filter((h) => h.startsWith('webhook-'))).toEqual([]);
        }
      });

      it('an SSRF refusal is 400 webhook_url_rejected on both majors, and registers nothing', async () => {
        const before = await webhookCount();
        for (const url of [
          'https://10.0.0.1/hook',
          'https://169.254.169.254/latest/meta-data',
          'https://[::ffff:7f00:1]/hook',
          'http://example.com/hook',
        ]) {
          const v2 = await call('POST', '/webhooks', {
            body: { url, events: ['run.completed'], secret: 'x'.repeat(32) },
          });
          expect([url, v2.status, v2.json.error]).toEqual([url, 400, 'webhook_url_rejected']);
          expect(v2.headers.get('openwop-version')).toMatch(/^2\./);
          expect(JSON.stringify(v2.json)).not.toContain('x'.repeat(32));
          const v1 = await call('POST', '/v1/webhooks', { body: { url, events: ['run.completed'] } });
          expect([url, v1.status, v1.json.error]).toEqual([url, 400, 'webhook_url_rejected']);
        }
        expect(await webhookCount()).toBe(before);
      });

      it('standard-webhooks-1 on opt-in: one signed verification request, then every delivery adds webhook-id/-timestamp/-signature that verify', async () => {
        const secret = `whsec_${randomBytes(32).toString('base64')}`;
        const reg = await call('POST', '/webhooks', {
          body: {
            url: rx.url('/verify-ok'),
            events: ['run.started', 'run.completed'],
            secret,
            signatureAlgorithms: ['v1', 'standard-webhooks-1'],
          },
        });
        expect(reg.status).toBe(201);
        expect(reg.json.signatureAlgorithms).toEqual(['v1', 'standard-webhooks-1']);
        expect(reg.json).not.toHaveProperty('secret');
        expect(JSON.stringify(reg.json)).not.toContain(secret);
        // Exactly one verification request, before the 201: signed, no OpenWOP-Event-Type.
        const [verification, ...more] = rx.at('/verify-ok');
        expect(more).toEqual([]);
        const vbody = JSON.parse(verification!.body) as Record<string, unknown>;
        expect(Object.keys(vbody).sort()).toEqual(['challenge', 'type']);
        expect(vbody.type).toBe('openwop.webhook.verification');
        expect(vbody.challenge).toMatch(/^[A-Za-z0-9_-]{22,128}$/);
        expect(verification!.headers['openwop-event-type']).toBeUndefined();
        expect(verifyStandardWebhooks(secret, verification!.headers, verification!.body)).toBe(true);

        const runId = await completedRun();
        const both = await waitFor(
          () => {
            const found = ['run.started', 'run.completed'].map(
              (t) => deliveriesOf('/verify-ok', runId, t)[0],
            );
            return found.every(Boolean) ? (found as Received[]) : undefined;
          },
          { timeoutMs: 20_000, what: 'both deliveries at /verify-ok' },
        );
        for (const d of both) {
          expect(verifyStandardWebhooks(secret, d.headers, d.body)).toBe(true);
          expect(d.headers['webhook-timestamp']).toBe(d.headers['openwop-timestamp']);
          expect(d.headers['openwop-signature-algorithm']).toBe('v1');
          expect(d.headers['openwop-webhook-id']).toBe(reg.json.webhookId);
          expect(d.headers['webhook-id']).not.toBe(d.headers['openwop-webhook-id']);
          // The OpenWOP scheme is unchanged: keyed by the secret string as issued.
          expect(verifyV1(secret, d.headers, d.body)).toBe(true);
        }
        expect(both[0]!.headers['webhook-id']).not.toBe(both[1]!.headers['webhook-id']);
      });

      it('webhook-id is the same on every attempt of one delivery: a failed first attempt is retried under the same id', async () => {
        const secret = `whsec_${randomBytes(24).toString('base64')}`;
        const reg = await call('POST', '/webhooks', {
          body: {
            url: rx.url('/verify-flaky'),
            events: ['run.completed'],
            secret,
            signatureAlgorithms: ['v1', 'standard-webhooks-1'],
            durable: true,
          },
        });
        expect(reg.status).toBe(201);
        const runId = await completedRun();
        const attempts = await waitFor(
          () => {
            const found = deliveriesOf('/verify-flaky', runId, 'run.completed');
            return found.length >= 2 ? found : undefined;
          },
          { timeoutMs: 30_000, what: 'a retried delivery at /verify-flaky' },
        );
        expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
        expect(attempts[0]!.headers['x-openwop-delivery-attempt']).toBe('1');
        expect(attempts[1]!.headers['x-openwop-delivery-attempt']).toBe('2');
        for (const a of attempts) expect(verifyStandardWebhooks(secret, a.headers, a.body)).toBe(true);
      });

      it('an opt-in refused (bad list, bad secret, wrong challenge, redirect) is 400 and persists nothing; no opt-in, no verification', async () => {
        const before = await webhookCount();
        const secret = `whsec_${randomBytes(32).toString('base64')}`;
        const sent = rx.received.length;
        for (const [body, code] of [
          [{ signatureAlgorithms: ['standard-webhooks-1'], secret }, 'validation_error'],
          [{ signatureAlgorithms: ['v1', 'v1'], secret }, 'validation_error'],
          [{ signatureAlgorithms: ['v1', 'ed25519'], secret }, 'validation_error'],
          [
            { signatureAlgorithms: ['v1', 'standard-webhooks-1'], secret: 'f'.repeat(64) },
            'validation_error',
          ],
          [{ signatureAlgorithms: ['v1', 'standard-webhooks-1'] }, 'validation_error'],
        ] as [Record<string, unknown>, string][]) {
          const res = await call('POST', '/webhooks', {
            body: { url: rx.url('/verify-never'), events: ['run.completed'], ...body },
          });
          expect([JSON.stringify(body.signatureAlgorithms), res.status, res.json.error]).toEqual([
            JSON.stringify(body.signatureAlgorithms),
            400,
            code,
          ]);
        }
        expect(rx.received.length).toBe(sent); // nothing was verified
        for (const [path, major] of [
          ['/verify-wrong', '2'],
          ['/redirect-verify', '2'],
          ['/verify-wrong-v1', '1'],
        ]) {
          const res = await call('POST', major === '1' ? '/v1/webhooks' : '/webhooks', {
            body: {
              url: rx.url(path!),
              events: ['run.completed'],
              secret,
              signatureAlgorithms: ['v1', 'standard-webhooks-1'],
            },
          });
          expect([path, res.status, res.json.error]).toEqual([path, 400, 'webhook_endpoint_unverified']);
          expect(rx.at(path!)).toHaveLength(1); // one request, never retried
        }
        expect(rx.at('/landed')).toEqual([]); // the redirect was not followed
        expect(await webhookCount()).toBe(before);
      });

      it('discovery advertises v1 and standard-webhooks-1 and no secret rotation; the v2 root has no webhooks record', async () => {
        const d = await call('GET', '/.well-known/openwop', { key: null });
        expect(d.json.webhooks).toMatchObject({ signatureAlgorithms: ['v1', 'standard-webhooks-1'] });
        expect(d.json.webhooks).not.toHaveProperty('secretRotation');
        const v2 = await call('GET', '/.well-known/openwop', { key: null, version: '2' });
        expect(v2.json).not.toHaveProperty('webhooks');
      });

      it('rotate-secret: a new whsec_ secret once; during the overlap OpenWOP-Signature stays on the old secret and webhook-signature carries both; after it only the new one signs', async () => {
        const old = `whsec_${randomBytes(32).toString('base64')}`;
        const reg = await call('POST', '/webhooks', {
          body: {
            url: rx.url('/verify-rot'),
            events: ['run.completed'],
            secret: old,
            signatureAlgorithms: ['v1', 'standard-webhooks-1'],
          },
        });
        expect(reg.status).toBe(201);
        const webhookId = reg.json.webhookId as string;
        const key = randomUUID();
        const rotated = await call('POST', `/webhooks/${webhookId}/rotate-secret`, { idempotencyKey: key });
        expect([rotated.status, rotated.headers.get('openwop-version')]).toEqual([200, '2.45']);
        const fresh = rotated.json.secret as string;
        expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(rotated.json).toMatchObject({ webhookId, overlapSeconds: OVERLAP_SECONDS });
        const until = Date.parse(rotated.json.previousSecretExpiresAt as string);
        expect(until).toBeGreaterThan(Date.now());
        // A retry under the same key answers the same, without the secret (shown once).
        const replayed = await call('POST', `/webhooks/${webhookId}/rotate-secret`, { idempotencyKey: key });
        expect([replayed.status, replayed.headers.get('openwop-idempotent-replay')]).toEqual([200, 'true']);
        expect(replayed.json).not.toHaveProperty('secret');
        expect(replayed.json.secretFingerprint).toBe(rotated.json.secretFingerprint);

        const during = await completedRun();
        const [d] = await waitFor(
          () => {
            const found = deliveriesOf('/verify-rot', during, 'run.completed');
            return found.length > 0 ? found : undefined;
          },
          { timeoutMs: 20_000, what: 'a delivery during the overlap' },
        );
        expect(Number(d!.headers['openwop-timestamp']) * 1000).toBeLessThan(until);
        expect(verifyV1(old, d!.headers, d!.body)).toBe(true);
        expect(verifyV1(fresh, d!.headers, d!.body)).toBe(false);
        expect(d!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
        expect(verifyStandardWebhooks(fresh, d!.headers, d!.body)).toBe(true);
        expect(verifyStandardWebhooks(old, d!.headers, d!.body)).toBe(true);

        await waitFor(async () => Date.now() > until + 500, {
          timeoutMs: (OVERLAP_SECONDS + 5) * 1000,
          what: 'the end of the overlap',
        });
        const after = await completedRun();
        const [e] = await waitFor(
          () => {
            const found = deliveriesOf('/verify-rot', after, 'run.completed');
            return found.length > 0 ? found : undefined;
          },
          { timeoutMs: 20_000, what: 'a delivery after the overlap' },
        );
        expect(verifyV1(fresh, e!.headers, e!.body)).toBe(true);
        expect(verifyV1(old, e!.headers, e!.body)).toBe(false);
        expect(e!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
        expect(verifyStandardWebhooks(fresh, e!.headers, e!.body)).toBe(true);
        expect(verifyStandardWebhooks(old, e!.headers, e!.body)).toBe(false);
      }, 60_000);

      it("rotate-secret on /v1: a 64-hex secret for a subscription that did not opt in; another tenant's or an unknown id is 404 subscription_not_found", async () => {
        const reg = await call('POST', '/v1/webhooks', {
          body: { url: rx.url('/rot'), events: ['run.completed'] },
        });
        expect(reg.status).toBe(201);
        const webhookId = reg.json.webhookId as string;
        const rotated = await call('POST', `/v1/webhooks/${webhookId}/rotate-secret`);
        expect(rotated.status).toBe(200);
        expect(rotated.json.secret).toMatch(/^[0-9a-f]{64}$/);
        expect(rotated.json.secret).not.toBe(reg.json.secret);
        const read = await call('GET', `/v1/webhooks/${webhookId}`);
        expect(read.json.secretFingerprint).toBe(rotated.json.secretFingerprint);
        expect(JSON.stringify(read.json)).not.toContain(rotated.json.secret as string);
        for (const [path, key] of [
          [`/v1/webhooks/${webhookId}/rotate-secret`, TEST_KEYS.t2],
          ['/v1/webhooks/wh_unknown/rotate-secret', TEST_KEYS.t1],
        ] as const) {
          const refused = await call('POST', path, { key });
          expect([refused.status, refused.json.error]).toEqual([404, 'subscription_not_found']);
        }
        expect((await call('GET', `/v1/webhooks/${webhookId}`)).json.secretFingerprint).toBe(
          rotated.json.secretFingerprint,
        );
      });
    });

    describe('callback delivery (item 6)', () => {
      it('a callbackUrl the egress guard refuses is 400 validation_error (field callbackUrl) on both majors, and starts nothing', async () => {
        const before = await runCount(TEST_KEYS.t2);
        for (const callbackUrl of [
          'https://10.0.0.1/cb',
          'http://127.0.0.2/cb',
          'https://169.254.169.254/',
          'ftp://x/',
        ]) {
          for (const path of ['/runs', '/v1/runs']) {
            const res = await call('POST', path, {
              key: TEST_KEYS.t2,
              body: { workflowId: 'conformance-noop', callbackUrl },
            });
            expect([callbackUrl, path, res.status, res.json.error]).toEqual([
              callbackUrl,
              path,
              400,
              'validation_error',
            ]);
            expect((res.json.details as { field?: string }).field).toBe('callbackUrl');
          }
        }
        expect(await runCount(TEST_KEYS.t2)).toBe(before);
      });

      it('an interrupt of a run created with a callbackUrl is delivered there as a notice; a redirect is not followed', async () => {
        const created = await call('POST', '/runs', {
          body: { workflowId: 'conformance-approval', callbackUrl: rx.url('/cb') },
        });
        expect(created.status).toBe(201);
        const runId = created.json.runId as string;
        const [notice] = await waitFor(
          () => {
            const found = rx.at('/cb').filter((r) => safeJson(r.body)?.runId === runId);
            return found.length > 0 ? found : undefined;
          },
          { timeoutMs: 30_000, what: `the callback notice of ${runId}` },
        );
        expect(JSON.parse(notice!.body)).toMatchObject({
          type: 'openwop.interrupt.notice',
          runId,
          tenantId: 't1',
          nodeId: 'gate',
          kind: 'approval',
        });
        // A major-2 run is named on the unversioned path space.
        const runUrl = (JSON.parse(notice!.body) as { runUrl: string }).runUrl;
        expect(runUrl.endsWith(`/runs/${runId}`) && !runUrl.includes('/v1/')).toBe(true);
        // The run is where the notice says: the snapshot names the same interrupt.
        const snap = await call('GET', `/runs/${runId}`);
        expect(snap.json.interrupt).toMatchObject({ nodeId: 'gate' });

        const redirected = await call('POST', '/v1/runs', {
          body: { workflowId: 'conformance-approval', callbackUrl: rx.url('/redirect-cb') },
        });
        expect(redirected.status).toBe(201);
        const rid = redirected.json.runId as string;
        await waitFor(() => rx.at('/redirect-cb').some((r) => safeJson(r.body)?.runId === rid), {
          timeoutMs: 30_000,
          what: `the callback attempt of ${rid}`,
        });
        expect(JSON.parse(rx.at('/redirect-cb')[0]!.body)).toMatchObject({
          runUrl: expect.stringMatching(new RegExp(`/v1/runs/${rid}$`)) as unknown,
        });
        expect(rx.at('/landed')).toEqual([]);
      });
    });

    describe('auth-scoped discovery (item 8)', () => {
      const capabilityKeys = (doc: Record<string, unknown>) => [
        ...Object.keys(doc),
        ...Object.keys((doc.extensions as object | undefined) ?? {}).map((k) => `extensions.${k}`),
      ];

      it('a key sees the document narrowed to its scopes, privately; a key with fewer scopes sees nothing a fuller one lacks', async () => {
        const anonymous = await call('GET', '/.well-known/openwop', { key: null });
        const full = await call('GET', '/.well-known/openwop');
        const ro = await call('GET', '/.well-known/openwop', { key: TEST_KEYS.readonly });
        expect([anonymous.status, full.status, ro.status]).toEqual([200, 200, 200]);
        for (const doc of [anonymous, full, ro]) {
          expect(doc.json.discovery).toEqual({ authScoped: { supported: true, mode: 'same-endpoint' } });
          for (const field of ['protocolVersion', 'supportedEnvelopes', 'schemaVersions', 'limits'])
            expect(doc.json[field]).toEqual(anonymous.json[field]);
        }
        expect(anonymous.headers.get('cache-control')).toMatch(/^public/);
        expect(ro.headers.get('cache-control')).toMatch(/^private/);
        expect(ro.headers.get('vary')).toMatch(/Authorization/);
        expect(full.json.webhooks).toBeDefined();
        expect(ro.json).not.toHaveProperty('webhooks');
        expect(ro.json).not.toHaveProperty('replay');
        expect(ro.json.extensions).not.toHaveProperty('audit');
        const roScopes = new Set(
          (ro.json.endpoints as { scope?: string }[]).flatMap((e) => e.scope?.split(' ') ?? []),
        );
        expect([...roScopes].sort()).toEqual(['manifest:read', 'runs:read']);
        const extra = capabilityKeys(ro.json).filter((k) => !capabilityKeys(full.json).includes(k));
        expect(extra).toEqual([]);
        // Under major 2 the root holds metadata only: the same for every caller.
        const v2ro = await call('GET', '/.well-known/openwop', { key: TEST_KEYS.readonly, version: '2' });
        const v2anon = await call('GET', '/.well-known/openwop', { key: null, version: '2' });
        expect(v2ro.json).toEqual(v2anon.json);
      });

      it('a key that does not verify is 401 unauthenticated', async () => {
        const res = await call('GET', '/.well-known/openwop', { key: 'test_nobody_' + 'z'.repeat(24) });
        expect([res.status, res.json.error]).toEqual([401, 'unauthenticated']);
      });
    });
  },
);
