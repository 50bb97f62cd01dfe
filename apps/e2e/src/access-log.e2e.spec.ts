import { randomUUID } from 'node:crypto';
import { OpenWopClient } from '@openwop/sdk';
import { TEST_KEYS, testTokenKeysJson, waitFor } from '@openwop/testing';
import { waitStatus } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// A resolving token in an unusual spelling of its path never reaches a log (issue 29 item 3, ADR
// 0015), both modes: routes match case-sensitively, so `/V1/INTERRUPTS/...` and
// `/v1/INTERRUPTS/...` are not served; a percent-encoded spelling of the token route is, and its
// access line holds the matched route with `:token` redacted, never the path the client sent.
// The embedded host logs in the pretty format and the distributed one in JSON: both are read.

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'odd spellings of a token path, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let client: OpenWopClient;

    beforeAll(async () => {
      hut = await MODES[mode]({
        WOP_TOKEN_KEYS: testTokenKeysJson('e2e-log-k1'),
        LOG_FORMAT: mode === 'embedded' ? 'pretty' : 'json',
      });
      client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
    });
    afterAll(async () => {
      await hut?.stop();
    });

    it('serves one spelling of each route and logs no part of the token whichever spelling was sent', async () => {
      const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
      await waitStatus(client, runId, 'waiting-approval');
      const token = await waitFor(
        async () =>
          ((await client.getRun(runId)).interrupt as { interruptToken?: string } | undefined)?.interruptToken,
        { timeoutMs: 15_000, what: `run ${runId} showing its resolving token` },
      );
      const [payload, mac] = token.split('.') as [string, string];
      expect(payload.startsWith('e')).toBe(true);
      const encoded = `%65${token.slice(1)}`; // `%65` is `e`
      const base = hut.host.gateways[0]!;
      const get = async (path: string) => {
        const res = await fetch(`${base}${path}`);
        return { status: res.status, body: (await res.json()) as { error?: string; intent?: string } };
      };

      expect(await get(`/V1/INTERRUPTS/${encoded}`)).toMatchObject({
        status: 404,
        body: { error: 'not_found' },
      });
      expect(await get(`/v1/INTERRUPTS/${encoded}`)).toMatchObject({
        status: 404,
        body: { error: 'not_found' },
      });
      expect(await get(`/v1/Interrupts/${token}/outcome`)).toMatchObject({
        status: 404,
        body: { error: 'not_found' },
      });
      expect(await get(`/v1/interrupts/${encoded}`)).toMatchObject({
        status: 200,
        body: { intent: 'resolve' },
      });
      expect(await get(`/v1/interrupts/${token.replace('.', '%2E')}`)).toMatchObject({
        status: 200,
        body: { intent: 'resolve' },
      });
      expect((await client.getRun(runId)).status).toBe('waiting-approval');

      // A marker request, logged after the ones above: once its line is out, theirs are too.
      const marker = `marker-${randomUUID()}`;
      expect((await get(`/v1/runs/${marker}`)).status).toBe(401);
      const logs = await waitFor(
        async () => {
          const text = hut.host.processes.map((p) => p.output()).join('\n');
          return text.includes(marker) ? text : undefined;
        },
        { timeoutMs: 15_000, what: 'the access line of the marker request' },
      );
      for (const piece of [
        token,
        encoded,
        mac,
        payload.slice(1),
        payload.slice(8, 40),
        token.replace('.', '%2E'),
      ]) {
        expect(logs.includes(piece)).toBe(false);
      }
      // The token route's own lines hold the matched route and the redacted path.
      expect(logs).toContain('/v1/interrupts/[redacted]');
      await client.call('POST', `/v1/runs/${runId}/cancel`, {});
    });
  },
);
