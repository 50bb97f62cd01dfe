import { createHmac, randomBytes } from 'node:crypto';
import { OpenWopApiError, OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { TEST_KEYS, testTokenKeysJson, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal } from './e2e-kit';

// Signed resolution tokens (RFC 0093) through the gateway's HTTP surface, both modes. The host runs
// with a known key ring (so the log check knows the secret) and a short default token lifetime, so
// expiry is observable while an approval gate with a long timeout still waits. Only a key that may
// resolve (`approvals:respond`) is ever shown a resolving token; the embedded host logs in the
// pretty format and the distributed one in JSON, so both loggers' redaction is checked.

const TTL_MS = 10_000;
const KID = 'e2e-k1';
const RACE_RUNS = Number(process.env.E2E_TOKEN_RACE_RUNS ?? 5);
const RACE_EACH = Number(process.env.E2E_TOKEN_RACE_EACH ?? 6);

/** The signed-token fields `GET /v1/runs/{runId}` adds to the pending interrupt. */
interface TokenedInterrupt {
  readonly interruptId: string;
  readonly nodeId: string;
  readonly kind: string;
  readonly requestedAt: string;
  readonly interruptToken: string;
  readonly callbackUrl: string;
  readonly inspectToken: string;
  readonly inspectUrl: string;
  readonly tokenExpiresAt: string;
}

/** Every field of the resolving side a snapshot may carry. */
const RESOLVING_FIELDS = ['interruptToken', 'callbackUrl'] as const;

/**
 * The text of an SSE response of `path` read with `key` until it holds `until` (bounded by a
 * deadline), then the connection is dropped: the stream of a waiting run does not end by itself.
 */
async function readSse(
  base: string,
  path: string,
  key: string,
  until: string,
  timeoutMs = 15_000,
): Promise<string> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  let text = '';
  try {
    const res = await fetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    while (!text.includes(until)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch (e) {
    throw new Error(
      `SSE ${path}: ${until} not seen within ${timeoutMs} ms (${String(e)}); got ${text.slice(0, 500)}`,
    );
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  if (!text.includes(until)) throw new Error(`SSE ${path} ended before ${until}: ${text.slice(0, 500)}`);
  return text;
}

/** A JSON text nested `depth` objects deep. */
const deepJson = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const statusCode = async (p: Promise<unknown>) => {
  const e = await refusal(p);
  return [e.status, e.code];
};

function workflow(id: string, node: { typeId: string; config: Record<string, unknown> }) {
  return {
    id,
    name: id,
    version: '1.0.0',
    nodes: [
      { id: 'gate', ...node },
      { id: 'after', typeId: 'core.noop', config: {} },
    ],
    edges: [{ id: 'e1', sourceNodeId: 'gate', targetNodeId: 'after' }],
    triggers: [],
    variables: [],
    metadata: {},
    settings: {},
  };
}

/** base64url(payload) + "." + base64url(HMAC-SHA256(secret, base64url(payload))), computed independently of the host. */
function sign(payload: Record<string, unknown>, secret: Buffer): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${createHmac('sha256', secret).update(encoded).digest('base64url')}`;
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'signed resolution tokens end to end, %s mode',
  (mode) => {
    const keysJson = testTokenKeysJson(KID);
    const secret = Buffer.from(
      (JSON.parse(keysJson) as { keys: Record<string, string> }).keys[KID]!,
      'base64',
    );
    const seenTokens = new Set<string>();
    const longGate = `tok-${mode}-long-gate`;
    const external = `tok-${mode}-external`;
    let hut: HostUnderTest;
    let client: OpenWopClient;
    let anon: OpenWopClient;
    let reader: OpenWopClient;

    beforeAll(async () => {
      hut = await MODES[mode]({
        WOP_TOKEN_KEYS: keysJson,
        WOP_TOKEN_TTL_MS: String(TTL_MS),
        LOG_FORMAT: mode === 'embedded' ? 'pretty' : 'json',
      });
      client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
      anon = new OpenWopClient({ baseUrl: hut.host.gateways[0]! });
      reader = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.readonly });
      await client.call(
        'POST',
        '/v1/workflows',
        workflow(longGate, {
          typeId: 'core.approvalGate',
          config: { title: 'ok?', actions: ['accept', 'reject'], timeoutMs: 600_000 },
        }),
      );
      await client.call(
        'POST',
        '/v1/workflows',
        workflow(external, {
          typeId: 'core.externalEvent',
          config: { eventType: 'order.paid', correlation: { orderId: 'o-1' } },
        }),
      );
    });
    afterAll(async () => {
      await hut?.stop();
    });

    /** Starts a run and waits until its snapshot shows the pending interrupt with its tokens. */
    async function waitingWithTokens(
      workflowId: string,
      status: string,
    ): Promise<{ runId: string; interrupt: TokenedInterrupt }> {
      const { runId } = await client.createRun({ workflowId });
      const snapshot = await waitFor(
        async () => {
          const s = await client.getRun(runId);
          const i = s.interrupt as Partial<TokenedInterrupt> | undefined;
          return s.status === status && i?.interruptToken ? s : undefined;
        },
        { timeoutMs: 15_000, what: `run ${runId} ${status} with tokens` },
      );
      const interrupt = snapshot.interrupt as TokenedInterrupt;
      seenTokens.add(interrupt.interruptToken).add(interrupt.inspectToken);
      return { runId, interrupt };
    }

    async function waitStatus(runId: string, status: string, timeoutMs = 15_000): Promise<RunSnapshotBody> {
      return waitFor(
        async () => {
          const s = await client.getRun(runId);
          return s.status === status ? s : undefined;
        },
        { timeoutMs, what: `run ${runId} ${status}` },
      );
    }

    it('the snapshot carries interruptToken, callbackUrl and an inspect-only token; both inspect without an API key', async () => {
      const { runId, interrupt } = await waitingWithTokens('conformance-approval', 'waiting-approval');
      expect(interrupt.callbackUrl).toMatch(
        new RegExp(`^https?://[^/]+/v1/interrupts/${interrupt.interruptToken.replace(/[.]/g, '\\.')}$`),
      );
      expect(Date.parse(interrupt.tokenExpiresAt)).toBe(Date.parse(interrupt.requestedAt) + TTL_MS);
      // Minted on demand from the interrupt's event: every read, through any gateway, shows the same
      // tokens (a gateway's first request also sets up its reply channel, so its first read may miss them).
      for (const gateway of hut.host.gateways) {
        const other = new OpenWopClient({ baseUrl: gateway, apiKey: TEST_KEYS.t1 });
        const again = await waitFor(
          async () => {
            const s = await other.getRun(runId);
            return (s.interrupt as Partial<TokenedInterrupt> | undefined)?.interruptToken ? s : undefined;
          },
          { timeoutMs: 15_000, what: `run ${runId} with tokens through ${gateway}` },
        );
        expect(again.interrupt).toMatchObject({
          interruptToken: interrupt.interruptToken,
          inspectToken: interrupt.inspectToken,
          tokenExpiresAt: interrupt.tokenExpiresAt,
        });
      }
      const viaResolve = await anon.call<Record<string, unknown>>(
        'GET',
        `/v1/interrupts/${interrupt.interruptToken}`,
      );
      expect(viaResolve).toMatchObject({
        runId,
        nodeId: 'gate',
        interruptId: interrupt.interruptId,
        kind: 'approval',
        requestedAt: interrupt.requestedAt,
        expiresAt: interrupt.tokenExpiresAt,
        intent: 'resolve',
      });
      expect(viaResolve.data).toMatchObject({ actions: ['accept', 'reject'] });
      expect(await anon.call('GET', `/v1/interrupts/${interrupt.inspectToken}`)).toMatchObject({
        interruptId: interrupt.interruptId,
        intent: 'inspect',
      });
      await client.call('POST', `/v1/runs/${runId}/cancel`, {});
    });

    it('resolve through the callback URL: 200, the run completes as the token; reuse is 409 for resolve and inspect', async () => {
      const { runId, interrupt } = await waitingWithTokens('conformance-approval', 'waiting-approval');
      const res = await fetch(interrupt.callbackUrl.replace(/^https?:\/\/[^/]+/, hut.host.gateways[0]!), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ resumeValue: { action: 'accept' } }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        runId,
        nodeId: 'gate',
        interruptId: interrupt.interruptId,
        status: 'resolved',
      });
      const done = await waitStatus(runId, 'completed');
      expect(done).not.toHaveProperty('interrupt');
      const received = (await client.listEvents(runId)).find((e) => e.type === 'approval.received');
      expect((received?.payload as { decidedBy?: string } | undefined)?.decidedBy).toBe(`token:${KID}`);
      for (const p of [
        anon.call('POST', `/v1/interrupts/${interrupt.interruptToken}`, { action: 'accept' }),
        anon.call('GET', `/v1/interrupts/${interrupt.interruptToken}`),
        anon.call('GET', `/v1/interrupts/${interrupt.inspectToken}`),
      ]) {
        expect(await statusCode(p)).toEqual([409, 'interrupt_already_resolved']);
      }
    });

    it('external event through the token: a correlation mismatch is 422 and the run keeps waiting; the matching event completes it', async () => {
      const { runId, interrupt } = await waitingWithTokens(external, 'waiting-external');
      expect(interrupt.kind).toBe('external-event');
      const path = `/v1/interrupts/${interrupt.interruptToken}`;
      expect(
        await statusCode(
          anon.call('POST', path, {
            resumeValue: { eventPayload: { paid: true }, correlation: { orderId: 'o-2' } },
          }),
        ),
      ).toEqual([422, 'correlation_mismatch']);
      expect((await client.getRun(runId)).status).toBe('waiting-external');
      await anon.call('POST', path, {
        resumeValue: { eventPayload: { paid: true }, correlation: { orderId: 'o-1' } },
      });
      await waitStatus(runId, 'completed');
    });

    it('any token that does not verify → 404 interrupt_not_found: malformed, opaque, forged, of an unknown key, or naming no interrupt; nothing changes', async () => {
      const { runId, interrupt } = await waitingWithTokens('conformance-approval', 'waiting-approval');
      const [payload] = interrupt.interruptToken.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
      // Correctly MACed with the real key, but not the canonical payload spelling: refused by the token service.
      const pretty = Buffer.from(JSON.stringify(claims, null, 1)).toString('base64url');
      const nonCanonical = `${pretty}.${createHmac('sha256', secret).update(pretty).digest('base64url')}`;
      // interrupt-token-matrix: a well-formed but unknown opaque token (`tok_<base64url>`) is 404 on GET and POST.
      const opaque = `tok_${randomBytes(32).toString('base64url')}`;
      for (const bad of [
        'not-a-token',
        'a.b.c',
        opaque,
        `${interrupt.interruptToken}=`,
        interrupt.interruptToken.replace('.', '.='),
        nonCanonical,
      ]) {
        const refused = await refusal(anon.call('GET', `/v1/interrupts/${encodeURIComponent(bad)}`));
        expect([refused.status, refused.code]).toEqual([404, 'interrupt_not_found']);
        // The same words for every one: nothing tells a malformed token from a forged one.
        expect(refused.message).toBe('404 interrupt_not_found: No interrupt is known for this token.');
        expect(
          await statusCode(
            anon.call('POST', `/v1/interrupts/${encodeURIComponent(bad)}`, {
              correlation: { orderId: 'noop', status: 'whatever' },
            }),
          ),
        ).toEqual([404, 'interrupt_not_found']);
      }
      const zeroMac = `${payload}.${Buffer.alloc(32).toString('base64url')}`;
      const otherSecret = sign(claims, Buffer.alloc(32, 7));
      const unknownKid = sign({ ...claims, kid: 'nobody' }, secret);
      const noInterrupt = sign({ ...claims, interruptId: `${runId}:gate:99` }, secret);
      for (const forged of [zeroMac, otherSecret, unknownKid, noInterrupt]) {
        expect(await statusCode(anon.call('GET', `/v1/interrupts/${forged}`))).toEqual([
          404,
          'interrupt_not_found',
        ]);
        expect(await statusCode(anon.call('POST', `/v1/interrupts/${forged}`, { action: 'accept' }))).toEqual(
          [404, 'interrupt_not_found'],
        );
      }
      // The real key and the canonical format are what the host accepts: re-signing the same claims gives the same token.
      expect(sign(claims, secret)).toBe(interrupt.interruptToken);
      expect((await client.getRun(runId)).status).toBe('waiting-approval');
      await client.call('POST', `/v1/runs/${runId}/cancel`, {});
    });

    it('an inspect-only token cannot resolve: 403, and the run keeps waiting', async () => {
      const { runId, interrupt } = await waitingWithTokens('conformance-approval', 'waiting-approval');
      expect(
        await statusCode(anon.call('POST', `/v1/interrupts/${interrupt.inspectToken}`, { action: 'accept' })),
      ).toEqual([403, 'forbidden']);
      expect((await client.getRun(runId)).status).toBe('waiting-approval');
      await anon.call('POST', `/v1/interrupts/${interrupt.interruptToken}`, { action: 'accept' });
      await waitStatus(runId, 'completed');
    });

    it('cancelling the run invalidates its tokens: 409, for the inspect-only one too, and no snapshot shows them', async () => {
      const { runId, interrupt } = await waitingWithTokens('conformance-approval', 'waiting-approval');
      await client.call('POST', `/v1/runs/${runId}/cancel`, {});
      const cancelled = await waitStatus(runId, 'cancelled');
      expect(JSON.stringify(cancelled)).not.toContain(interrupt.inspectToken);
      await waitFor(
        async () =>
          (await refusal(anon.call('GET', `/v1/interrupts/${interrupt.interruptToken}`))).status === 409,
        { timeoutMs: 10_000, what: 'the token invalidated by run.cancelled' },
      );
      expect(
        await statusCode(
          anon.call('POST', `/v1/interrupts/${interrupt.interruptToken}`, { action: 'accept' }),
        ),
      ).toEqual([409, 'interrupt_already_resolved']);
      expect(await statusCode(anon.call('GET', `/v1/interrupts/${interrupt.inspectToken}`))).toEqual([
        409,
        'interrupt_already_resolved',
      ]);
    });

    it('a runs:read key without approvals:respond: snapshot, interrupt list, SSE and poll show only the inspect-only token and link', async () => {
      const { runId, interrupt } = await waitingWithTokens('conformance-approval', 'waiting-approval');
      const base = hut.host.gateways[0]!;
      // The key that may resolve (t1) is shown both sides.
      expect(interrupt.callbackUrl).toMatch(/\/v1\/interrupts\/[\w-]+\.[\w-]+$/);
      expect(interrupt.inspectUrl).toBe(
        interrupt.callbackUrl.replace(interrupt.interruptToken, interrupt.inspectToken),
      );
      const resolving = [interrupt.interruptToken, interrupt.interruptToken.split('.')[1]!];
      const noResolvingToken = (what: string, text: string) => {
        for (const secret of resolving)
          expect({ what, leaks: text.includes(secret) }).toEqual({ what, leaks: false });
      };

      const snapshot = await reader.getRun(runId);
      expect(snapshot.interrupt).toMatchObject({
        interruptId: interrupt.interruptId,
        inspectToken: interrupt.inspectToken,
        inspectUrl: interrupt.inspectUrl,
        tokenExpiresAt: interrupt.tokenExpiresAt,
      });
      for (const field of RESOLVING_FIELDS) expect(snapshot.interrupt).not.toHaveProperty(field);
      noResolvingToken('snapshot', JSON.stringify(snapshot));

      const list = await reader.listInterrupts({ runId });
      expect(list.interrupts.map((i) => (i as { interruptId: string }).interruptId)).toEqual([
        interrupt.interruptId,
      ]);
      noResolvingToken('interrupt list', JSON.stringify(list));

      const updates = await readSse(
        base,
        `/v1/runs/${runId}/events?streamMode=debug`,
        TEST_KEYS.readonly,
        'interrupt.requested',
      );
      noResolvingToken('SSE debug', updates);
      const values = await readSse(
        base,
        `/v1/runs/${runId}/events?streamMode=values`,
        TEST_KEYS.readonly,
        'state.snapshot',
      );
      noResolvingToken('SSE values', values);
      const poll = await fetch(`${base}/v1/runs/${runId}/events/poll?after=-1`, {
        headers: { authorization: `Bearer ${TEST_KEYS.readonly}` },
      });
      expect(poll.status).toBe(200);
      const pollText = await poll.text();
      expect(pollText).toContain('interrupt.requested');
      noResolvingToken('poll', pollText);

      // What the reader was given holds no authority: the inspect link cannot resolve, nor can its key.
      expect(await anon.call('GET', new URL(snapshot.interrupt!.inspectUrl!).pathname)).toMatchObject({
        intent: 'inspect',
      });
      expect(
        await statusCode(
          anon.call('POST', new URL(snapshot.interrupt!.inspectUrl!).pathname, { action: 'accept' }),
        ),
      ).toEqual([403, 'forbidden']);
      expect(
        await statusCode(reader.call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' })),
      ).toEqual([403, 'forbidden']);
      expect((await client.getRun(runId)).status).toBe('waiting-approval');
      await client.call('POST', `/v1/runs/${runId}/cancel`, {});
    });

    it('errors on the token route and malformed bodies, before routing included, change nothing and log no token or key', async () => {
      const { runId, interrupt } = await waitingWithTokens('conformance-approval', 'waiting-approval');
      const base = hut.host.gateways[0]!;
      const tokenPath = `/v1/interrupts/${interrupt.interruptToken}`;
      const send = async (path: string, body: string, headers: Record<string, string> = {}) =>
        (
          await fetch(`${base}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body,
          })
        ).status;
      const statuses = [
        await send(tokenPath, deepJson(3_000)),
        await send(tokenPath, '{"action":'),
        await send(tokenPath, 'not gzip at all', { 'content-encoding': 'gzip' }),
        await send(`${tokenPath}%ZZ`, '{}'),
        await send(`/v1/runs/${runId}/interrupts/gate`, deepJson(3_000), {
          authorization: `Bearer ${TEST_KEYS.t1}`,
        }),
        await send(`/v1/runs/${runId}/interrupts/gate`, '{"action":', {
          authorization: `Bearer ${TEST_KEYS.t1}`,
        }),
        await send('/v1/runs', '{"workflowId":', { authorization: `Bearer ${TEST_KEYS.t1}` }),
      ];
      // Each is the client's fault (a body that is not the gzip it claims included): 4xx, never 500.
      for (const status of statuses)
        expect(status >= 400 && status < 500 ? status : `unexpected ${status}`).toBe(status);
      expect((await client.getRun(runId)).status).toBe('waiting-approval');
      const logs = hut.host.processes.map((p) => p.output()).join('\n');
      for (const secret of [
        interrupt.interruptToken,
        interrupt.interruptToken.split('.')[1]!,
        ...Object.values(TEST_KEYS),
      ]) {
        expect(logs.includes(secret)).toBe(false);
      }
      await client.call('POST', `/v1/runs/${runId}/cancel`, {});
    });

    it(`an expired token is 410 after WOP_TOKEN_TTL_MS (${TTL_MS} ms) and no snapshot hands it out, while the gate (timeout 10 min) still waits`, async () => {
      const { runId, interrupt } = await waitingWithTokens(longGate, 'waiting-approval');
      expect(Date.parse(interrupt.tokenExpiresAt) - Date.parse(interrupt.requestedAt)).toBe(TTL_MS);
      expect(await anon.call('GET', `/v1/interrupts/${interrupt.interruptToken}`)).toMatchObject({
        intent: 'resolve',
      });
      // Once past its expiry, the snapshot shows `tokenExpired` and no token, to any key.
      const expired = await waitFor(
        async () => {
          const s = await client.getRun(runId);
          return (s.interrupt as { tokenExpired?: boolean } | undefined)?.tokenExpired ? s : undefined;
        },
        { timeoutMs: TTL_MS + 15_000, what: `run ${runId} showing its tokens expired` },
      );
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(interrupt.tokenExpiresAt));
      for (const snapshot of [expired, await reader.getRun(runId)]) {
        expect(snapshot.interrupt).toMatchObject({
          tokenExpired: true,
          tokenExpiresAt: interrupt.tokenExpiresAt,
        });
        for (const field of [...RESOLVING_FIELDS, 'inspectToken', 'inspectUrl'])
          expect(snapshot.interrupt).not.toHaveProperty(field);
        expect(JSON.stringify(snapshot)).not.toContain(interrupt.interruptToken.split('.')[1]!);
      }
      expect(await statusCode(anon.call('GET', `/v1/interrupts/${interrupt.interruptToken}`))).toEqual([
        410,
        'interrupt_expired',
      ]);
      expect(
        await statusCode(
          anon.call('POST', `/v1/interrupts/${interrupt.interruptToken}`, { action: 'accept' }),
        ),
      ).toEqual([410, 'interrupt_expired']);
      expect(await statusCode(anon.call('GET', `/v1/interrupts/${interrupt.inspectToken}`))).toEqual([
        410,
        'interrupt_expired',
      ]);
      expect((await client.getRun(runId)).status).toBe('waiting-approval');
      await client.call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' });
      await waitStatus(runId, 'completed');
    });

    it(`token vs API race: ${RACE_RUNS} runs × ${RACE_EACH} token + ${RACE_EACH} API resolves over every gateway, exactly one 200 per run`, async () => {
      const waiting = await Promise.all(
        Array.from({ length: RACE_RUNS }, () =>
          waitingWithTokens('conformance-approval', 'waiting-approval'),
        ),
      );
      const anons = hut.host.gateways.map((g) => new OpenWopClient({ baseUrl: g }));
      const apis = hut.host.gateways.map((g) => new OpenWopClient({ baseUrl: g, apiKey: TEST_KEYS.t1 }));
      const outcome = (p: Promise<unknown>) =>
        p
          .then(() => '200')
          .catch((e: unknown) => (e instanceof OpenWopApiError ? `${e.status} ${e.code}` : String(e)));
      const perRun = await Promise.all(
        waiting.map(({ runId, interrupt }) =>
          Promise.all(
            Array.from({ length: RACE_EACH * 2 }, (_, i) => {
              const g = i % hut.host.gateways.length;
              return i % 2 === 0
                ? outcome(
                    anons[g]!.call('POST', `/v1/interrupts/${interrupt.interruptToken}`, {
                      action: 'accept',
                    }),
                  )
                : outcome(apis[g]!.call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' }));
            }),
          ),
        ),
      );
      for (const outcomes of perRun) {
        const counts = outcomes.reduce<Record<string, number>>(
          (acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }),
          {},
        );
        expect(counts).toEqual({ 200: 1, '409 interrupt_already_resolved': RACE_EACH * 2 - 1 });
      }
      await Promise.all(waiting.map(({ runId }) => waitStatus(runId, 'completed', 30_000)));
      for (const { runId } of waiting) {
        const types = (await client.listEvents(runId)).map((e) => e.type);
        expect(types.filter((t) => t === 'interrupt.resolved')).toHaveLength(1);
      }
    });

    it('the host logs carry no token secret and no full token', () => {
      expect(seenTokens.size).toBeGreaterThan(0);
      const forms = [secret.toString('base64'), secret.toString('base64url'), secret.toString('hex')];
      for (const proc of hut.host.processes) {
        const log = proc.output();
        for (const form of forms) expect(log.includes(form)).toBe(false);
        for (const key of Object.values(TEST_KEYS)) expect(log.includes(key)).toBe(false);
        for (const token of seenTokens) {
          expect(log.includes(token)).toBe(false);
          // Neither half of a token is logged either; at most its first 8 characters.
          expect(log.includes(token.split('.')[1]!)).toBe(false);
          expect(log.includes(token.slice(0, 24))).toBe(false);
        }
      }
    });
  },
);
