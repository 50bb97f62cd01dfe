import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { OpenWopClient, type RunStreamEvent } from '@openwop/sdk';
import { waitFor } from '@openwop/testing';
import { query } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// Claims in the run log (ADR 0035), both modes, real Kafka and Postgres: while alice claims,
// releases and lets a short lease lapse, bob's SSE stream of the run (the default `updates` mode,
// from the other gateway in distributed mode) sees interrupt.claimed, interrupt.released (reason
// released), interrupt.claimed and interrupt.released (reason expired, told by the interrupt
// timer) in that order, each once; an allow-listed loopback webhook subscribed to the claim events
// gets them signed; the claim changes sit in the run log between the request and the answer.

const ALL = [
  'manifest:read',
  'manifest:write',
  'runs:create',
  'runs:read',
  'runs:cancel',
  'approvals:respond',
  'webhooks:manage',
];
const KEYS = { alice: 'claimev_alice_' + 'a'.repeat(24), bob: 'claimev_bob_' + 'b'.repeat(24) };
const API_KEYS = JSON.stringify([
  { key: KEYS.alice, scopes: ALL, tenant: 't1', id: 'key-alice', principal: 'alice' },
  { key: KEYS.bob, scopes: ALL, tenant: 't1', id: 'key-bob', principal: 'bob' },
]);
const CLAIM_TYPES = ['interrupt.claimed', 'interrupt.released'];

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A local plain-HTTP receiver: records each delivery (headers and raw body) and answers 204. */
class Receiver {
  readonly received: Received[] = [];
  private readonly open = new Set<Socket>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.open.add(s);
      s.on('close', () => this.open.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.open) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** webhooks.md §Verification, written here independently of the host's code. */
function verifies(secret: string, r: Received): boolean {
  const ts = Number(r.headers['x-openwop-timestamp']);
  const sig = String(r.headers['x-openwop-signature'] ?? '').replace(/^sha256=/, '');
  const expected = createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
  return (
    sig.length === expected.length && timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(sig, 'hex'))
  );
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'claims in SSE streams and webhooks, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    const receiver = new Receiver();
    let secret = '';
    const workflowId = `claim-events-${mode}`;
    const alice = () => new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: KEYS.alice });
    // Bob watches through the last gateway (the other instance in distributed mode).
    const bob = () =>
      new OpenWopClient({ baseUrl: hut.host.gateways[hut.host.gateways.length - 1]!, apiKey: KEYS.bob });

    beforeAll(async () => {
      await receiver.start();
      hut = await MODES[mode]({
        WOP_API_KEYS: API_KEYS,
        WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        WEBHOOK_POLL_MS: '200',
        INTERRUPT_TIMER_MS: '100',
      });
      await alice().call('POST', '/v1/workflows', {
        id: workflowId,
        name: workflowId,
        version: '1.0.0',
        nodes: [
          {
            id: 'gate',
            typeId: 'core.approvalGate',
            config: {
              title: 'ship it?',
              actions: ['accept', 'reject'],
              approversList: ['alice', 'bob'],
              timeoutMs: 600_000,
            },
          },
          { id: 'after', typeId: 'core.noop', config: {} },
        ],
        edges: [{ id: 'e1', sourceNodeId: 'gate', targetNodeId: 'after' }],
        triggers: [],
        variables: [],
        metadata: {},
        settings: {},
      });
      const hook = await alice().call<{ secret: string }>('POST', '/v1/webhooks', {
        url: `http://127.0.0.1:${receiver.port}/claims`,
        events: CLAIM_TYPES,
      });
      secret = hook.secret;
    }, 180_000);
    afterAll(async () => {
      await hut?.stop();
      await receiver.stop();
    }, 60_000);

    const post = (client: OpenWopClient, path: string, body: unknown = {}) =>
      client.call<Record<string, unknown>>('POST', path, body);

    it("a second approver's stream sees the claim, its release and a lapsed lease; a webhook gets them signed", async () => {
      const { runId } = await alice().createRun({ workflowId });
      await alice().waitForStatus(runId, 'waiting-approval', { timeoutMs: 30_000 });
      const seen: RunStreamEvent[] = [];
      // Aborted if the case fails early, so the stream does not outlive the host it reads.
      const stop = new AbortController();
      const watching = (async () => {
        for await (const frame of bob().streamEvents(runId, { signal: stop.signal })) seen.push(frame);
      })();
      try {
        const claimsSeen = () =>
          seen.flatMap((f) =>
            CLAIM_TYPES.includes(f.type) && 'data' in f
              ? [f.data as { type: string; payload: Record<string, unknown> }]
              : [],
          );
        // The stream is open once it sent the run's history (the gate's request).
        await waitFor(
          () => seen.some((f) => f.type === 'node.suspended' || f.type === 'interrupt.requested'),
          { timeoutMs: 30_000, what: "bob's stream open" },
        );

        const claimed = await post(alice(), `/v1/runs/${runId}/interrupts/gate:claim`);
        expect(claimed.claimedBy).toBe('alice');
        await waitFor(() => claimsSeen().length >= 1, {
          timeoutMs: 30_000,
          what: "interrupt.claimed on bob's stream",
        });
        expect(await post(alice(), `/v1/runs/${runId}/interrupts/gate:release`)).toMatchObject({
          runId,
          nodeId: 'gate',
        });
        await waitFor(() => claimsSeen().length >= 2, {
          timeoutMs: 30_000,
          what: "interrupt.released on bob's stream",
        });
        // A short lease lapses: the interrupt timer tells it once.
        const short = await post(alice(), `/v1/runs/${runId}/interrupts/gate:claim`, { leaseMs: 1_500 });
        await waitFor(() => claimsSeen().length >= 4, {
          timeoutMs: 30_000,
          what: "the lapse of the short lease on bob's stream",
        });

        expect(claimsSeen().map((e) => [e.type, e.payload])).toEqual([
          [
            'interrupt.claimed',
            {
              nodeId: 'gate',
              interruptId: expect.any(String),
              claimedBy: 'alice',
              expiresAt: claimed.claimExpiresAt,
            },
          ],
          [
            'interrupt.released',
            {
              nodeId: 'gate',
              interruptId: expect.any(String),
              previousClaimant: 'alice',
              reason: 'released',
            },
          ],
          [
            'interrupt.claimed',
            {
              nodeId: 'gate',
              interruptId: expect.any(String),
              claimedBy: 'alice',
              expiresAt: short.claimExpiresAt,
            },
          ],
          [
            'interrupt.released',
            { nodeId: 'gate', interruptId: expect.any(String), previousClaimant: 'alice', reason: 'expired' },
          ],
        ]);
        // The lapse left nobody holding it.
        expect((await bob().getRun(runId)).interrupt).not.toHaveProperty('assignee');

        // The webhook subscriber got each claim change, signed. Deliveries are attempted concurrently
        // (webhooks.md promises no order; receivers order by the event's sequence), so the order
        // checked is the sequence order.
        const deliveries = await waitFor(
          () => {
            const mine = receiver.received.filter(
              (r) => (JSON.parse(r.body) as { runId: string }).runId === runId,
            );
            return mine.length >= 4 ? mine : undefined;
          },
          { timeoutMs: 30_000, what: 'the claim events delivered to the webhook' },
        );
        expect(deliveries.every((r) => verifies(secret, r))).toBe(true);
        const inOrder = deliveries
          .map((r) => ({
            r,
            event: (
              JSON.parse(r.body) as {
                event: { type: string; sequence: number; payload: Record<string, unknown> };
              }
            ).event,
          }))
          .sort((x, y) => x.event.sequence - y.event.sequence);
        const events = inOrder.map((d) => d.event);
        expect(new Set(events.map((e) => e.sequence)).size).toBe(4);
        expect(events.map((e) => e.type)).toEqual([
          'interrupt.claimed',
          'interrupt.released',
          'interrupt.claimed',
          'interrupt.released',
        ]);
        expect(events[0]!.payload).toMatchObject({ claimedBy: 'alice', nodeId: 'gate' });
        expect(inOrder.map((d) => d.r.headers['x-openwop-event-type'])).toEqual(events.map((e) => e.type));

        // Bob answers; the stream ends with the run, and the log holds each claim change once.
        await post(bob(), `/v1/runs/${runId}/interrupts/gate`, { resumeValue: { action: 'accept' } });
        await watching;
      } finally {
        stop.abort();
        await watching;
      }
      expect(seen.at(-1)?.type).toBe('run.completed');
      const log = await query<{ type: string }>(
        hut.db.url,
        `SELECT type FROM run_events WHERE run_id = $1 ORDER BY sequence`,
        [runId],
      );
      const types = log.map((e) => e.type);
      expect(types.filter((t) => CLAIM_TYPES.includes(t))).toHaveLength(4);
      expect(types.indexOf('interrupt.claimed')).toBeGreaterThan(types.indexOf('node.suspended'));
      expect(types.lastIndexOf('interrupt.released')).toBeLessThan(types.indexOf('node.resumed'));
      expect(
        receiver.received.filter((r) => (JSON.parse(r.body) as { runId: string }).runId === runId),
      ).toHaveLength(4);
    }, 150_000);
  },
);
