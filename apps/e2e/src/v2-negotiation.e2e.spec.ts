import { TEST_KEYS, waitFor } from '@openwop/testing';
import { sendJson, type HeadedAnswer as Answer } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// OpenWOP v2 beside v1 (issue 30 item 1, ADR 0041), both modes: discovery names both majors, the
// OpenWOP-Version header is checked on requests and set on every protocol answer (errors too), the
// unversioned path space serves every /v1 operation under major 2 — a whole approval cycle here —
// an unknown operation is 404 on both path spaces, and a run keeps the major it was created under.

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'v1 and v2 negotiated per request, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let base: string;

    beforeAll(async () => {
      hut = await MODES[mode]();
      base = hut.host.gateways[0]!;
    });
    afterAll(async () => {
      await hut?.stop();
    });

    async function call(
      method: string,
      path: string,
      options: { body?: unknown; version?: string; auth?: boolean; accept?: string } = {},
    ): Promise<Answer> {
      const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
      if (options.auth !== false) headers.authorization = `Bearer ${TEST_KEYS.t1}`;
      if (options.version !== undefined) headers['openwop-version'] = options.version;
      return sendJson(`${base}${path}`, method, headers, options.body);
    }

    const statusOf = async (path: string, version?: string): Promise<string> =>
      (await call('GET', path, version ? { version } : {})).body.status as string;
    const waitFor2 = (path: string, status: string, version?: string) =>
      waitFor(async () => ((await statusOf(path, version)) === status ? true : undefined), {
        timeoutMs: 20_000,
        what: `${path} ${status}`,
      });
    const eventsOf = async (path: string, version?: string) =>
      (await call('GET', `${path}/events`, version ? { version } : {})).body.events as {
        type: string;
        sequence: number;
        payload: Record<string, unknown>;
      }[];

    it('discovery: one resource, the v1 document without a header, the closed v2 root with OpenWOP-Version: 2', async () => {
      const v1 = await call('GET', '/.well-known/openwop', { auth: false });
      expect(v1.status).toBe(200);
      expect(v1.headers.get('openwop-version')).toBe('1.0');
      expect(v1.body).toMatchObject({
        protocolVersion: '1.0',
        protocolVersions: ['1.0', '2.45'],
        preferredVersion: '1.0',
      });
      expect(v1.headers.get('capabilities-etag')).toBe(v1.headers.get('etag'));
      expect(v1.headers.get('vary')).toMatch(/OpenWOP-Version/i);

      for (const version of ['2', '2.0', '2.45']) {
        const v2 = await call('GET', '/.well-known/openwop', { auth: false, version });
        expect(v2.status).toBe(200);
        expect(v2.headers.get('openwop-version')).toBe('2.45');
        expect(v2.headers.get('capabilities-etag')).toBeNull();
        expect(v2.headers.get('etag')).not.toBe(v1.headers.get('etag'));
        expect(v2.body).toEqual({
          protocolVersion: '1.0',
          protocolVersions: ['1.0', '2.45'],
          preferredVersion: '1.0',
          implementation: expect.any(Object),
          eventLogSchemaVersion: 2,
          fixtures: expect.any(Array),
          interrupt: {
            status: 'stable',
            since: '2.0',
            witness: 'witnessable-gated',
            tokenAlgs: ['hs256'],
            refKinds: ['principal', 'group', 'role'],
            callbackDelivery: true,
          },
        });
      }
      const etag = (await call('GET', '/.well-known/openwop', { auth: false, version: '2' })).headers.get(
        'etag',
      )!;
      const res = await fetch(`${base}/.well-known/openwop`, {
        headers: { 'openwop-version': '2', 'if-none-match': etag },
      });
      expect([res.status, res.headers.get('openwop-version')]).toEqual([304, '2.45']);
    });

    it('406 for a major we do not serve, 400 for a /v1 path with another major; both in the envelope with the header', async () => {
      for (const [path, auth] of [
        ['/.well-known/openwop', false],
        ['/runs', true],
      ] as const) {
        const refused = await call('GET', path, { version: '3', auth });
        expect(refused.status).toBe(406);
        expect(refused.body).toEqual({
          error: 'protocol_version_unsupported',
          message: expect.any(String),
          details: { protocolVersions: ['1.0', '2.45'] },
        });
        expect(refused.headers.get('openwop-version')).toBe('2.45');
      }
      for (const version of ['2', '2.0', '3']) {
        const mismatch = await call('GET', '/v1/runs', { version });
        expect(mismatch.status).toBe(400);
        expect(mismatch.body.error).toBe('protocol_version_mismatch');
        expect(mismatch.headers.get('openwop-version')).toBe('1.0');
      }
      expect((await call('GET', '/v1/runs', { version: '1' })).status).toBe(200);
    });

    it('OpenWOP-Version on every protocol answer, errors included; none on health', async () => {
      expect((await call('GET', '/v1/runs')).headers.get('openwop-version')).toBe('1.0');
      expect((await call('GET', '/runs')).headers.get('openwop-version')).toBe('2.45');
      const unauthenticated = await call('GET', '/runs', { auth: false });
      expect([
        unauthenticated.status,
        unauthenticated.body.error,
        unauthenticated.headers.get('openwop-version'),
      ]).toEqual([401, 'unauthenticated', '2.45']);
      const missing = await call('GET', '/v1/runs/no-such-run');
      expect([missing.status, missing.body.error, missing.headers.get('openwop-version')]).toEqual([
        404,
        'not_found',
        '1.0',
      ]);
      expect((await call('GET', '/healthz', { auth: false })).headers.get('openwop-version')).toBeNull();
    });

    it('an operation we do not offer is 404 not_found on both path spaces, never a catch-all 400', async () => {
      for (const [path, version] of [
        ['/v1/no-such-operation', '1.0'],
        ['/no-such-operation', '2.45'],
        ['/runs/r/no-such-operation', '2.45'],
        ['/', '2.45'],
        ['/host/effect-seams', '2.45'],
      ] as const) {
        const answer = await call('GET', path);
        expect([path, answer.status, answer.body.error, answer.headers.get('openwop-version')]).toEqual([
          path,
          404,
          'not_found',
          version,
        ]);
      }
    });

    it('a full approval cycle on the unversioned paths under major 2: create, wait, resolve with {resumeValue}, completed', async () => {
      const created = await call('POST', '/runs', { body: { workflowId: 'conformance-approval' } });
      expect(created.status).toBe(201);
      expect(created.headers.get('openwop-version')).toBe('2.45');
      const runId = created.body.runId as string;
      expect(created.body.statusUrl).toBe(
        `${String(created.body.statusUrl).split('/runs/')[0]}/runs/${runId}`,
      );
      expect(String(created.body.statusUrl)).not.toContain('/v1/');
      await waitFor2(`/runs/${runId}`, 'waiting-approval');
      const snapshot = await call('GET', `/runs/${runId}`, { version: '2' });
      expect(snapshot.body).toMatchObject({ interrupt: { kind: 'approval', nodeId: 'gate' } });

      // One shared name, two representations (versioning.md §1.4): a browser gets the page, which
      // names no protocol version; a request carrying OpenWOP-Version is a protocol client and gets JSON.
      const token = await waitFor(
        async () =>
          ((await call('GET', `/runs/${runId}`)).body.interrupt as { interruptToken?: string } | undefined)
            ?.interruptToken,
        { timeoutMs: 15_000, what: `run ${runId} showing its token` },
      );
      const browser = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';
      for (const path of [`/v1/interrupts/${token}`, `/interrupts/${token}`]) {
        const page = await fetch(`${base}${path}`, { headers: { accept: browser } });
        expect([page.status, page.headers.get('content-type'), page.headers.get('openwop-version')]).toEqual([
          200,
          'text/html; charset=utf-8',
          null,
        ]);
        expect(page.headers.get('vary')).toBe('Accept, OpenWOP-Version');
        await page.text();
      }
      const protocolClient = await fetch(`${base}/interrupts/${token}`, {
        headers: { accept: browser, 'openwop-version': '2' },
      });
      expect([protocolClient.status, protocolClient.headers.get('openwop-version')]).toEqual([200, '2.45']);
      expect(await protocolClient.json()).toMatchObject({ runId, nodeId: 'gate' });

      // v2's resolve body is closed: the bare v1 form is refused, naming the fields.
      const bare = await call('POST', `/runs/${runId}/interrupts/gate`, { body: { action: 'accept' } });
      expect([bare.status, bare.body.error, bare.headers.get('openwop-version')]).toEqual([
        400,
        'validation_error',
        '2.45',
      ]);
      const extra = await call('POST', `/runs/${runId}/interrupts/gate`, {
        body: { resumeValue: { action: 'accept' }, note: 'x' },
      });
      expect(extra.status).toBe(400);
      const resolved = await call('POST', `/runs/${runId}/interrupts/gate`, {
        body: { resumeValue: { action: 'accept' } },
      });
      expect([resolved.status, resolved.body.status, resolved.headers.get('openwop-version')]).toEqual([
        200,
        'resolved',
        '2.45',
      ]);
      await waitFor2(`/runs/${runId}`, 'completed');

      const again = await call('POST', `/runs/${runId}/interrupts/gate`, {
        body: { resumeValue: { action: 'accept' } },
      });
      expect([again.status, again.body.error]).toEqual([409, 'interrupt_already_resolved']);
      const events = await eventsOf(`/runs/${runId}`);
      expect(events.map((e) => e.type).at(-1)).toBe('run.completed');
      expect(events[0]).toMatchObject({ type: 'run.started', payload: { protocolMajor: 2 } });
      const polled = await call('GET', `/runs/${runId}/events/poll?after=-1`);
      expect(polled.status).toBe(200);
      expect(polled.headers.get('openwop-version')).toBe('2.45');
    });

    it('a v1 run read and answered through v2 keeps v1 semantics; its fork stays a v1 run', async () => {
      const created = await call('POST', '/v1/runs', { body: { workflowId: 'conformance-approval' } });
      expect(created.status).toBe(201);
      const runId = created.body.runId as string;
      expect(String(created.body.statusUrl)).toContain(`/v1/runs/${runId}`);
      await waitFor2(`/v1/runs/${runId}`, 'waiting-approval');

      // Read under major 2: the same run, named as the contract that produced the answer.
      const read = await call('GET', `/runs/${runId}`, { version: '2' });
      expect([read.status, read.body.status, read.headers.get('openwop-version')]).toEqual([
        200,
        'waiting-approval',
        '2.45',
      ]);
      // Its era is v1's (2), read through either major; the v2 discovery root states the same constant.
      expect(read.body.eventLogSchemaVersion).toBe(2);
      expect((await call('GET', `/v1/runs/${runId}`)).body.eventLogSchemaVersion).toBe(2);
      const answered = await call('POST', `/runs/${runId}/interrupts/gate`, {
        body: { resumeValue: { action: 'accept' } },
      });
      expect(answered.status).toBe(200);
      await waitFor2(`/runs/${runId}`, 'completed', '2');

      // The log is the v1 run's, in v1 vocabulary, the same whichever major reads it; no major-2 stamp.
      const viaV2 = await eventsOf(`/runs/${runId}`, '2');
      const viaV1 = await eventsOf(`/v1/runs/${runId}`);
      expect(viaV2).toEqual(viaV1);
      expect(viaV1[0]!.type).toBe('run.started');
      expect(viaV1[0]!.payload).not.toHaveProperty('protocolMajor');

      // A fork asked for under major 2 is a run of its source's major (ADR 0041).
      const fork = await call('POST', `/runs/${runId}:fork`, { body: { mode: 'replay' } });
      expect([fork.status, fork.headers.get('openwop-version')]).toEqual([201, '2.45']);
      const forkId = fork.body.runId as string;
      await waitFor2(`/runs/${forkId}`, 'completed');
      const forkStarted = (await eventsOf(`/runs/${forkId}`))[0]!;
      expect(forkStarted.type).toBe('run.started');
      expect(forkStarted.payload).not.toHaveProperty('protocolMajor');
      expect(forkStarted.payload.forkedFrom).toMatchObject({ runId });
    });

    it('the other v1 operations answer on their unversioned twins: list, cancel, bulk cancel, pause, workflows, webhooks, openapi', async () => {
      const created = await call('POST', '/runs', { body: { workflowId: 'conformance-approval' } });
      const runId = created.body.runId as string;
      await waitFor2(`/runs/${runId}`, 'waiting-approval');
      expect((await call('GET', `/runs?limit=5`)).status).toBe(200);
      const paused = await call('POST', `/runs/${runId}:pause`, { body: {} });
      expect([paused.status, paused.headers.get('openwop-version')]).toEqual([202, '2.45']);
      const pausedAgain = await call('POST', `/runs/${runId}:pause`, { body: {} });
      // v1's run_already_paused is no v2 code: answered as the registered run_state_conflict.
      expect([
        pausedAgain.status,
        pausedAgain.body.error,
        (pausedAgain.body.details as { reason?: string }).reason,
      ]).toEqual([409, 'run_state_conflict', 'run_already_paused']);
      expect((await call('POST', `/runs/${runId}:resume`, { body: {} })).status).toBe(202);
      expect((await call('POST', `/runs/${runId}/cancel`, { body: {} })).status).toBe(200);
      const bulk = await call('POST', '/runs:bulk-cancel', { body: { runIds: [runId] } });
      expect(bulk.status).toBe(200);
      expect((await call('GET', '/workflows/conformance-approval')).status).toBe(200);
      expect((await call('GET', '/interrupts?limit=1')).status).toBe(200);
      const openapi = await call('GET', '/openapi.json', { auth: false });
      expect(openapi.status).toBe(200);
      expect(openapi.headers.get('openwop-version')).toBe('2.45');
      expect(Object.keys(openapi.body.paths as object)).toEqual(
        expect.arrayContaining(['/runs', '/runs/{runId}:fork', '/interrupts/{token}']),
      );
      expect(Object.keys(openapi.body.paths as object).some((p) => p.startsWith('/v1/'))).toBe(false);
      const webhook = await call('POST', '/webhooks', {
        body: { url: 'http://127.0.0.1:1/hook', events: ['run.completed'] },
      });
      expect(webhook.headers.get('openwop-version')).toBe('2.45');
      expect([201, 400]).toContain(webhook.status);
    });
  },
);
