import { createHmac } from 'node:crypto';
import { TEST_KEYS, testTokenKeysJson, waitFor } from '@openwop/testing';
import { sendJson, workflowDefinition, type HeadedAnswer as Answer } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// `ow2.` tokens (issue 30 item 2; identity.md §4, RFC 0170 §E.1), both modes: a run created under
// major 2 gets `ow2.hs256.<kid>.<payload>.<mac>` tokens, inspected and resolved through them on
// both path spaces; a tampered alg, kid or MAC is `401 interrupt_token_invalid` under major 2 and
// v1's `404 interrupt_not_found` on /v1/; an expired one is `410 interrupt_expired` on both; a v1
// run keeps v1 tokens, which resolve (`kid: legacy`) through either path space until they expire.

const KID = 'e2e-v2k';
const CAPPED_MS = 90_000;

/** The pending interrupt of a snapshot, with the token fields a key holding approvals:respond sees. */
interface TokenedInterrupt {
  readonly interruptId: string;
  readonly requestedAt: string;
  readonly interruptToken: string;
  readonly inspectToken: string;
  readonly tokenExpiresAt: string;
}

/** An ow2 token over `claims`, signed with `secret` the way identity.md §4 reads: independent of the host's code. */
function ow2(alg: string, kid: string, claims: Record<string, unknown>, secret: Buffer): string {
  const input = `ow2.${alg}.${kid}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('ow2 interrupt tokens, %s mode', (mode) => {
  const keysJson = testTokenKeysJson(KID);
  const secret = Buffer.from((JSON.parse(keysJson) as { keys: Record<string, string> }).keys[KID]!, 'base64');
  const capped = `ow2-${mode}-capped`;
  const seenTokens = new Set<string>();
  let hut: HostUnderTest;
  let base: string;

  beforeAll(async () => {
    hut = await MODES[mode]({ WOP_TOKEN_KEYS: keysJson });
    base = hut.host.gateways[0]!;
    const registered = await call('POST', '/v1/workflows', {
      body: workflowDefinition(
        capped,
        [
          {
            id: 'gate',
            typeId: 'core.approvalGate',
            config: { title: 'ok?', actions: ['accept', 'reject'], timeoutMs: CAPPED_MS },
          },
          { id: 'after', typeId: 'core.noop' },
        ],
        [['gate', 'after']],
      ),
    });
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await hut?.stop();
  });

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; version?: string; auth?: boolean } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.auth !== false) headers.authorization = `Bearer ${TEST_KEYS.t1}`;
    if (options.version !== undefined) headers['openwop-version'] = options.version;
    return sendJson(`${base}${path}`, method, headers, options.body);
  }

  /** Creates a run on `createPath` (`/runs`: major 2; `/v1/runs`: major 1) and waits for its gate's tokens. */
  async function waitingRun(
    createPath: '/runs' | '/v1/runs',
    workflowId: string,
  ): Promise<{ runId: string; interrupt: TokenedInterrupt }> {
    const created = await call('POST', createPath, { body: { workflowId } });
    expect(created.status).toBe(201);
    const runId = created.body.runId as string;
    const interrupt = await waitFor(
      async () => {
        const s = await call('GET', `/v1/runs/${runId}`);
        const i = s.body.interrupt as Partial<TokenedInterrupt> | undefined;
        return s.body.status === 'waiting-approval' && i?.interruptToken
          ? (i as TokenedInterrupt)
          : undefined;
      },
      { timeoutMs: 20_000, what: `run ${runId} waiting with its tokens` },
    );
    seenTokens.add(interrupt.interruptToken).add(interrupt.inspectToken);
    return { runId, interrupt };
  }

  const waitCompleted = (runId: string) =>
    waitFor(
      async () => ((await call('GET', `/runs/${runId}`)).body.status === 'completed' ? true : undefined),
      {
        timeoutMs: 20_000,
        what: `run ${runId} completed`,
      },
    );

  it('discovery under major 2 advertises interrupt.tokenAlgs: exactly the hs256 this host verifies; OpenAPI gives the token grammar', async () => {
    const v2 = await call('GET', '/.well-known/openwop', { auth: false, version: '2' });
    expect(v2.status).toBe(200);
    expect(v2.body.interrupt).toEqual({
      status: 'stable',
      since: '2.0',
      witness: 'witnessable-gated',
      tokenAlgs: ['hs256'],
      refKinds: ['principal', 'group', 'role'],
      callbackDelivery: true,
    });
    // The v2 OpenAPI document gives the token parameter its grammar and lists the 401; v1's does not.
    type Operation = { parameters: { name: string; schema: { pattern?: string } }[]; responses: object };
    const v2Api = (await call('GET', '/openapi.json', { version: '2' })).body.paths as Record<
      string,
      Record<string, Operation>
    >;
    const v1Api = (await call('GET', '/v1/openapi.json')).body.paths as Record<
      string,
      Record<string, Operation>
    >;
    for (const method of ['get', 'post']) {
      const v2Op = v2Api['/interrupts/{token}']![method]!;
      expect(v2Op.responses).toHaveProperty('401');
      expect(v2Op.parameters.find((p) => p.name === 'token')!.schema.pattern).toMatch(/^\^\(ow2/);
      expect(v1Api['/v1/interrupts/{token}']![method]!.responses).not.toHaveProperty('401');
    }
  });

  it('a v2 run gets ow2 tokens (expiresAt 30 min by default, capped at the timeout); they inspect on both path spaces and resolve under major 2', async () => {
    const { runId, interrupt } = await waitingRun('/runs', 'conformance-approval');
    for (const token of [interrupt.interruptToken, interrupt.inspectToken])
      expect(token).toMatch(new RegExp(`^ow2\\.hs256\\.${KID}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(interrupt.tokenExpiresAt) - Date.parse(interrupt.requestedAt)).toBe(30 * 60_000);
    // The run's major decides its tokens, whichever path space reads it.
    const viaV2 = (await call('GET', `/runs/${runId}`)).body.interrupt as TokenedInterrupt;
    expect(viaV2.interruptToken).toBe(interrupt.interruptToken);

    for (const path of [
      `/interrupts/${interrupt.interruptToken}`,
      `/v1/interrupts/${interrupt.inspectToken}`,
    ]) {
      const inspected = await call('GET', path, { auth: false });
      expect([path, inspected.status]).toEqual([path, 200]);
      expect(inspected.body).toMatchObject({
        runId,
        nodeId: 'gate',
        interruptId: interrupt.interruptId,
        expiresAt: interrupt.tokenExpiresAt,
      });
    }
    const inspectOnly = await call('POST', `/interrupts/${interrupt.inspectToken}`, {
      auth: false,
      body: { resumeValue: { action: 'accept' } },
    });
    expect([inspectOnly.status, inspectOnly.body.error]).toEqual([403, 'forbidden']);
    const resolved = await call('POST', `/interrupts/${interrupt.interruptToken}`, {
      auth: false,
      body: { resumeValue: { action: 'accept' } },
    });
    expect([resolved.status, resolved.body.status, resolved.headers.get('openwop-version')]).toEqual([
      200,
      'resolved',
      '2.45',
    ]);
    await waitCompleted(runId);
    const spent = await call('POST', `/interrupts/${interrupt.interruptToken}`, {
      auth: false,
      body: { resumeValue: { action: 'accept' } },
    });
    expect([spent.status, spent.body.error]).toEqual([409, 'interrupt_already_resolved']);

    const cappedRun = await waitingRun('/runs', capped);
    expect(Date.parse(cappedRun.interrupt.tokenExpiresAt) - Date.parse(cappedRun.interrupt.requestedAt)).toBe(
      CAPPED_MS,
    );
    const byV1Path = await call('POST', `/v1/interrupts/${cappedRun.interrupt.interruptToken}`, {
      auth: false,
      body: { resumeValue: { action: 'accept' } },
    });
    expect([byV1Path.status, byV1Path.body.status]).toEqual([200, 'resolved']);
    await waitCompleted(cappedRun.runId);
  });

  it('a tampered alg, an unheld kid or a bad MAC: 401 interrupt_token_invalid under major 2, 404 interrupt_not_found on /v1/; an expired token: 410 on both', async () => {
    const { runId, interrupt } = await waitingRun('/runs', 'conformance-approval');
    const token = interrupt.interruptToken;
    const [payload, mac] = token.split('.').slice(-2) as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toEqual({
      runId,
      nodeId: 'gate',
      interruptId: interrupt.interruptId,
      expiresAt: interrupt.tokenExpiresAt,
      intent: 'resolve',
    });
    const refused = {
      'an alg we do not advertise': `ow2.hs512.${KID}.${payload}.${mac}`,
      'an alg MACed with our key': ow2('hs512', KID, claims, secret),
      'a kid we do not hold': `ow2.hs256.k-other.${payload}.${mac}`,
      'the legacy kid': ow2('hs256', 'legacy', claims, secret),
      'a bad MAC': `ow2.hs256.${KID}.${payload}.${Buffer.alloc(32).toString('base64url')}`,
      'a v1-shaped forgery': `${payload}.${mac}`,
      'no token shape at all': 'ow2.nothing-here',
    };
    for (const [what, bad] of Object.entries(refused)) {
      for (const method of ['GET', 'POST'] as const) {
        const body = method === 'POST' ? { body: { resumeValue: { action: 'accept' } } } : {};
        const v2 = await call(method, `/interrupts/${bad}`, { auth: false, ...body });
        expect([what, method, v2.status, v2.body.error, v2.headers.get('openwop-version')]).toEqual([
          what,
          method,
          401,
          'interrupt_token_invalid',
          '2.45',
        ]);
        expect(v2.headers.get('www-authenticate')).toMatch(/^Bearer /);
        const v1 = await call(method, `/v1/interrupts/${bad}`, { auth: false, ...body });
        expect([what, method, v1.status, v1.body.error, v1.body.message]).toEqual([
          what,
          method,
          404,
          'interrupt_not_found',
          'No interrupt is known for this token.',
        ]);
      }
    }

    // Authentic (signed with the host's key) but a second past its expiresAt.
    const expired = ow2(
      'hs256',
      KID,
      { ...claims, expiresAt: new Date(Date.now() - 1_000).toISOString() },
      secret,
    );
    for (const path of [`/interrupts/${expired}`, `/v1/interrupts/${expired}`]) {
      const inspected = await call('GET', path, { auth: false });
      expect([path, inspected.status, inspected.body.error]).toEqual([path, 410, 'interrupt_expired']);
      const resolved = await call('POST', path, { auth: false, body: { resumeValue: { action: 'accept' } } });
      expect([path, resolved.status, resolved.body.error]).toEqual([path, 410, 'interrupt_expired']);
    }
    // None of these decided anything: the run still waits, and its own token still resolves.
    expect((await call('GET', `/runs/${runId}`)).body.status).toBe('waiting-approval');
    const resolved = await call('POST', `/interrupts/${token}`, {
      auth: false,
      body: { resumeValue: { action: 'accept' } },
    });
    expect(resolved.status).toBe(200);
    await waitCompleted(runId);
  });

  it('a v1 run keeps v1 tokens, which inspect and resolve (kid: legacy) through the unversioned path space too', async () => {
    const { runId, interrupt } = await waitingRun('/v1/runs', 'conformance-approval');
    expect(interrupt.interruptToken.startsWith('ow2.')).toBe(false);
    expect(interrupt.interruptToken.split('.')).toHaveLength(2);
    const viaV2 = (await call('GET', `/runs/${runId}`)).body.interrupt as TokenedInterrupt;
    expect(viaV2.interruptToken).toBe(interrupt.interruptToken);
    const inspected = await call('GET', `/interrupts/${interrupt.inspectToken}`, { auth: false });
    expect([inspected.status, inspected.body.runId]).toEqual([200, runId]);
    const resolved = await call('POST', `/interrupts/${interrupt.interruptToken}`, {
      auth: false,
      body: { resumeValue: { action: 'accept' } },
    });
    expect([resolved.status, resolved.body.status]).toEqual([200, 'resolved']);
    await waitCompleted(runId);
  });

  it('no process log holds an ow2 token, nor its payload and MAC (ADR 0015)', () => {
    const ow2Tokens = [...seenTokens].filter((t) => t.startsWith('ow2.'));
    expect(ow2Tokens.length).toBeGreaterThanOrEqual(4);
    const logs = hut.host.processes.map((p) => p.output()).join('\n');
    for (const token of ow2Tokens) {
      expect(logs.includes(token)).toBe(false);
      expect(logs.includes(token.split('.').slice(-2).join('.'))).toBe(false);
    }
  });
});
