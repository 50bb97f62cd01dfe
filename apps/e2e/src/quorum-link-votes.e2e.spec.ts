import { OpenWopClient } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal, waitStatus, workflowDefinition } from './e2e-kit';

// One person counts once on a quorum gate (ADR 0005), whatever the route, in both modes. The attack
// of issue 29: a key holder votes through the API, reads the run snapshot (which hands their key the
// resolving `interruptToken`) and votes again through the signed link without a key. The link names
// no person, so its vote on a `requiredApprovals: 2` gate is refused and the run keeps waiting; the
// same key voting again through bulk is "already voted"; a second principal closes the gate.

const WAIT_MS = 20_000;
const T1 = 'key-t1';
const T1B = 'key-t1b';

const QUORUM = workflowDefinition(
  'quorum-link-votes',
  [
    {
      id: 'gate',
      typeId: 'core.approvalGate',
      config: { title: 'Two approvers', actions: ['accept', 'reject', 'ask'], requiredApprovals: 2 },
    },
    { id: 'after', typeId: 'core.noop' },
  ],
  [['gate', 'after']],
);

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'one person counts once on a quorum gate, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let t1: OpenWopClient;
    let t1b: OpenWopClient;
    let anon: OpenWopClient;

    beforeAll(async () => {
      hut = await MODES[mode]();
      const gateways = hut.host.gateways;
      t1 = new OpenWopClient({ baseUrl: gateways[0]!, apiKey: TEST_KEYS.t1 });
      t1b = new OpenWopClient({ baseUrl: gateways[0]!, apiKey: TEST_KEYS.t1b });
      // The link vote goes through the last gateway (the second instance in the distributed mode).
      anon = new OpenWopClient({ baseUrl: gateways[gateways.length - 1]! });
      await t1.call('POST', '/v1/workflows', QUORUM);
    });
    afterAll(async () => {
      await hut?.stop();
    });

    it('an API vote then a link vote with the snapshot token is refused (403), the run keeps waiting; a second principal completes it', async () => {
      const { runId } = await t1.call<{ runId: string }>('POST', '/v1/runs', { workflowId: QUORUM.id });
      const vote = (as: OpenWopClient, body: unknown) =>
        as.call<{ status: string }>('POST', `/v1/runs/${runId}/interrupts/gate`, body);

      // 1. The key holder votes through the API: one vote of two, pending.
      await waitStatus(t1, runId, 'waiting-approval', WAIT_MS);
      expect(await vote(t1, { resumeValue: { action: 'accept' } })).toMatchObject({ status: 'pending' });

      // 2. The snapshot hands the same key the resolving token.
      const token = await waitFor(
        async () =>
          (((await t1.getRun(runId)).interrupt ?? {}) as { interruptToken?: string }).interruptToken,
        { timeoutMs: WAIT_MS, what: `run ${runId} waiting with its resolving token` },
      );
      const eventsBefore = await t1.listEvents(runId);

      // 3. The second vote through the signed link, without a key: refused, whatever the body's spelling.
      for (const body of [
        { resumeValue: { action: 'accept' } },
        { resumeValue: { decision: 'approved' } },
        { action: 'accept' },
      ]) {
        const refused = await refusal(anon.call('POST', `/v1/interrupts/${token}`, body));
        expect({ status: refused.status, code: refused.code, details: refused.details }).toEqual({
          status: 403,
          code: 'forbidden',
          details: expect.objectContaining({
            requiredApprovals: 2,
            reason: 'quorum_vote_requires_principal',
          }),
        });
        expect(refused.message).toMatch(/own API key/);
      }
      // The same key through the other routes (legacy approvals, bulk) is the same person: already voted.
      const legacy = await refusal(
        t1.call('POST', `/v1/runs/${runId}/approvals/gate`, { decision: 'approved' }),
      );
      expect({ status: legacy.status, code: legacy.code }).toEqual({ status: 400, code: 'validation_error' });
      expect(legacy.message).toMatch(/already voted/);
      const bulk = await t1.call<{ results: { ok: boolean; error?: { code: string; message: string } }[] }>(
        'POST',
        '/v1/interrupts:bulk-resolve',
        { items: [{ runId, nodeId: 'gate', resumeValue: { action: 'accept' } }] },
      );
      expect(bulk.results).toEqual([
        expect.objectContaining({
          ok: false,
          error: expect.objectContaining({
            code: 'validation_error',
            message: expect.stringMatching(/already voted/),
          }),
        }),
      ]);

      // The run still waits on the gate; nothing reached its log; the link still works (not spent).
      expect(await t1.getRun(runId)).toMatchObject({ status: 'waiting-approval', currentNodeId: 'gate' });
      expect(await t1.listEvents(runId)).toEqual(eventsBefore);
      expect(await anon.call('GET', `/v1/interrupts/${token}`)).toMatchObject({
        runId,
        nodeId: 'gate',
        intent: 'resolve',
      });

      // 4. A second, distinct principal closes the quorum.
      expect(await vote(t1b, { resumeValue: { action: 'accept', feedback: 'second' } })).toMatchObject({
        status: 'resolved',
      });
      await waitStatus(t1, runId, 'completed', WAIT_MS);
      const events = await t1.listEvents(runId);
      const received = events
        .filter((e) => e.type === 'approval.received')
        .map((e) => (e.payload as { decidedBy?: string }).decidedBy);
      expect(received).toEqual([T1, T1B]);
      const resolved = events.find((e) => e.type === 'interrupt.resolved')?.payload as Record<
        string,
        unknown
      >;
      expect(resolved).toMatchObject({
        resolvedBy: T1B,
        resumeValue: {
          decidedBy: T1B,
          votes: [expect.objectContaining({ decidedBy: T1 }), expect.objectContaining({ decidedBy: T1B })],
        },
      });
      expect(JSON.stringify(events)).not.toContain('token:');
    });
  },
);
