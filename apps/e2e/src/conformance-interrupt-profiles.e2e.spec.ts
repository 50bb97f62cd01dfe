import { OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { refusal } from './e2e-kit';

// The interrupt profiles of interrupt-profiles.md through their seeded conformance fixtures, in both
// modes: quorum (attested voters, majority of the panel rejects), external event (correlation-matched
// callback through the signed token), auth-required (bearer only) and the parent/child cancel cascade
// (core.subWorkflow child runs, ADR 0025). Each case uses its own runs, so they run concurrently.

type RunEvent = Awaited<ReturnType<OpenWopClient['listEvents']>>[number];
type Payload = Record<string, unknown>;
type Snapshot = RunSnapshotBody & { childRuns?: { runId: string; status: string }[]; parentRunId?: string };

const WAIT_MS = 20_000;

const payloadsOf = (events: readonly RunEvent[], type: string): Payload[] =>
  events.filter((e) => e.type === type).map((e) => e.payload as Payload);

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'conformance interrupt profiles, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let t1: OpenWopClient;
    /** No API key: the signed-token surface. */
    let anon: OpenWopClient;
    /** `runs:read` only: no `approvals:respond`. */
    let reader: OpenWopClient;

    beforeAll(async () => {
      hut = await MODES[mode]();
      const gateways = hut.host.gateways;
      t1 = new OpenWopClient({ baseUrl: gateways[0]!, apiKey: TEST_KEYS.t1 });
      anon = new OpenWopClient({ baseUrl: gateways[gateways.length - 1]! });
      reader = new OpenWopClient({ baseUrl: gateways[gateways.length - 1]!, apiKey: TEST_KEYS.readonly });
    });
    afterAll(async () => {
      await hut?.stop();
    });

    async function start(workflowId: string): Promise<string> {
      const { runId } = await t1.call<{ runId: string }>('POST', '/v1/runs', { workflowId });
      return runId;
    }

    function waitStatus(runId: string, status: string): Promise<Snapshot> {
      return waitFor(
        async () => {
          const s = (await t1.getRun(runId)) as Snapshot;
          return s.status === status ? s : undefined;
        },
        { timeoutMs: WAIT_MS, what: `run ${runId} ${status}` },
      );
    }

    const resolve = (runId: string, nodeId: string, resumeValue: unknown, as: OpenWopClient = t1) =>
      as.call<{ status: string }>('POST', `/v1/runs/${runId}/interrupts/${nodeId}`, { resumeValue });
    const resolveByToken = (token: string, resumeValue: unknown) =>
      anon.call<{ status: string }>('POST', `/v1/interrupts/${encodeURIComponent(token)}`, { resumeValue });

    /** The resolving token the snapshot hands a caller who may resolve. */
    function tokenOf(snap: RunSnapshotBody): string {
      const interrupt = snap.interrupt as { interruptToken?: string; callbackUrl?: string } | undefined;
      const token =
        interrupt?.interruptToken ?? interrupt?.callbackUrl?.match(/\/v1\/interrupts\/([^/?]+)/)?.[1];
      expect(token).toEqual(expect.any(String));
      return decodeURIComponent(token!);
    }

    /** A refused request with `status`/`code` that left the run exactly as it was. */
    async function refusedUnchanged(
      runId: string,
      send: () => Promise<unknown>,
      status: number,
      code: string,
    ) {
      const before = await t1.getRun(runId);
      const e = await refusal(send());
      expect([e.status, e.code]).toEqual([status, code]);
      const after = await t1.getRun(runId);
      expect({ status: after.status, lastSequence: after.lastSequence }).toEqual({
        status: before.status,
        lastSequence: before.lastSequence,
      });
      return e;
    }

    it('discovery lists the profile fixtures and the profiles', async () => {
      const doc = await anon.call<{ fixtures: string[]; extensions: { interrupts: { profiles: string[] } } }>(
        'GET',
        '/.well-known/openwop',
      );
      expect(doc.fixtures).toEqual(
        expect.arrayContaining([
          'conformance-interrupt-quorum',
          'conformance-interrupt-external-event',
          'conformance-interrupt-auth-required',
          'conformance-interrupt-parent-child-cancel',
          'conformance-interrupt-parent-child-cancel-child',
        ]),
      );
      expect(doc.extensions.interrupts.profiles).toEqual(
        expect.arrayContaining([
          'openwop-interrupt-quorum',
          'openwop-interrupt-auth-required',
          'openwop-interrupt-external-event',
          'openwop-interrupt-cascade-cancel',
        ]),
      );
    });

    it.concurrent(
      'quorum: two attested accepts keep the run waiting, the third completes it; a voter votes once',
      async () => {
        const runId = await start('conformance-interrupt-quorum');
        await waitStatus(runId, 'waiting-approval');
        for (const voter of ['approver-1', 'approver-2']) {
          expect(await resolve(runId, 'gate', { action: 'accept', voter })).toMatchObject({
            status: 'pending',
          });
          expect((await t1.getRun(runId)).status).toBe('waiting-approval');
        }
        const twice = await refusedUnchanged(
          runId,
          () => resolve(runId, 'gate', { action: 'reject', voter: 'approver-2' }),
          400,
          'validation_error',
        );
        expect(twice.message).toContain('approver-2');
        expect(await resolve(runId, 'gate', { action: 'accept', voter: 'approver-3' })).toMatchObject({
          status: 'resolved',
        });
        await waitStatus(runId, 'completed');
        const events = await t1.listEvents(runId);
        expect(payloadsOf(events, 'approval.received').map((p) => [p.voter, p.action, p.decidedBy])).toEqual([
          ['approver-1', 'accept', 'key-t1'],
          ['approver-2', 'accept', 'key-t1'],
          ['approver-3', 'accept', 'key-t1'],
        ]);
        expect(payloadsOf(events, 'interrupt.resolved')).toEqual([
          expect.objectContaining({ outcome: 'resolved' }),
        ]);
      },
    );

    it.concurrent(
      'quorum: one reject of three leaves the gate waiting, the second (a majority) fails the run',
      async () => {
        const runId = await start('conformance-interrupt-quorum');
        await waitStatus(runId, 'waiting-approval');
        expect(await resolve(runId, 'gate', { action: 'reject', voter: 'approver-1' })).toMatchObject({
          status: 'pending',
        });
        expect((await t1.getRun(runId)).status).toBe('waiting-approval');
        expect(await resolve(runId, 'gate', { action: 'reject', voter: 'approver-2' })).toMatchObject({
          status: 'resolved',
        });
        const failed = await waitStatus(runId, 'failed');
        expect(failed.error).toMatchObject({ code: 'approval_rejected' });
      },
    );

    it.concurrent(
      'external event: waiting-external with a callback token; a mismatch is refused and changes nothing; the matching event completes',
      async () => {
        const runId = await start('conformance-interrupt-external-event');
        const snap = await waitStatus(runId, 'waiting-external');
        expect(snap.interrupt).toMatchObject({
          kind: 'external-event',
          data: { correlation: { orderId: 'fixture-order-1', status: 'completed' } },
        });
        const token = tokenOf(snap);
        const mismatch = await refusedUnchanged(
          runId,
          () => resolveByToken(token, { orderId: 'different-order', status: 'completed' }),
          422,
          'correlation_mismatch',
        );
        expect(mismatch.details).toMatchObject({ mismatchedKeys: ['orderId'] });
        await refusedUnchanged(
          runId,
          () => resolveByToken(token, { orderId: 'fixture-order-1' }),
          400,
          'validation_error',
        );
        const event = { orderId: 'fixture-order-1', status: 'completed', externalReference: 'e2e-123' };
        expect(await resolveByToken(token, event)).toMatchObject({ status: 'resolved' });
        const done = await waitStatus(runId, 'completed');
        expect(done.outputs).toMatchObject({ eventPayload: event });
        const replay = await refusal(resolveByToken(token, event));
        expect([404, 409, 410]).toContain(replay.status);
        const resolved = payloadsOf(await t1.listEvents(runId), 'interrupt.resolved');
        expect(resolved).toEqual([expect.objectContaining({ resumeValue: { eventPayload: event } })]);
      },
    );

    it.concurrent(
      'auth required: no key 401, a key without approvals:respond 403, the callback token 403; a bearer resolve completes',
      async () => {
        const runId = await start('conformance-interrupt-auth-required');
        const snap = await waitStatus(runId, 'waiting-approval');
        await refusedUnchanged(
          runId,
          () => resolve(runId, 'gate', { action: 'accept' }, anon),
          401,
          'unauthenticated',
        );
        await refusedUnchanged(
          runId,
          () => resolve(runId, 'gate', { action: 'accept' }, reader),
          403,
          'forbidden',
        );
        const byToken = await refusedUnchanged(
          runId,
          () => resolveByToken(tokenOf(snap), { action: 'accept' }),
          403,
          'forbidden',
        );
        expect(byToken.message).toContain('Bearer');
        expect(await resolve(runId, 'gate', { action: 'accept' })).toMatchObject({ status: 'resolved' });
        await waitStatus(runId, 'completed');
      },
    );

    /** Starts the parent and waits until it shows its child's approval wait; returns both run ids. */
    async function parentWaitingOnChild(): Promise<{ parentRunId: string; childRunId: string }> {
      const parentRunId = await start('conformance-interrupt-parent-child-cancel');
      const parent = await waitStatus(parentRunId, 'waiting-approval');
      expect(parent.currentNodeId).toBe('invoke-child');
      const childRunId = parent.childRuns?.[0]?.runId;
      expect(childRunId).toEqual(expect.any(String));
      const child = await waitStatus(childRunId!, 'waiting-approval');
      expect(child).toMatchObject({
        parentRunId,
        currentNodeId: 'child-gate',
        workflowId: 'conformance-interrupt-parent-child-cancel-child',
      });
      return { parentRunId, childRunId: childRunId! };
    }

    it.concurrent(
      'parent/child: cancelling the parent cancels the child (parent-cancelled), whose interrupt is then gone (410)',
      async () => {
        const { parentRunId, childRunId } = await parentWaitingOnChild();
        await t1.call('POST', `/v1/runs/${parentRunId}/cancel`, { reason: 'e2e-cascade' });
        await waitStatus(parentRunId, 'cancelled');
        await waitStatus(childRunId, 'cancelled');
        const [parentCancelled] = payloadsOf(await t1.listEvents(parentRunId), 'run.cancelled');
        expect(parentCancelled).toMatchObject({ reason: 'e2e-cascade' });
        expect(parentCancelled).not.toHaveProperty('parentRunId');
        expect(payloadsOf(await t1.listEvents(childRunId), 'run.cancelled')).toEqual([
          expect.objectContaining({ reason: 'parent-cancelled', parentRunId, parentNodeId: 'invoke-child' }),
        ]);
        const late = await refusal(resolve(childRunId, 'child-gate', { action: 'accept' }));
        expect([late.status, late.code]).toEqual([410, 'interrupt_gone']);
        // Cancel stays idempotent on both runs.
        expect(await t1.call('POST', `/v1/runs/${childRunId}/cancel`, {})).toMatchObject({
          status: 'cancelled',
        });
      },
    );

    it.concurrent(
      "parent/child: the child's approval completes the child, then the parent with the child's outputs",
      async () => {
        const { parentRunId, childRunId } = await parentWaitingOnChild();
        expect(await resolve(childRunId, 'child-gate', { action: 'accept' })).toMatchObject({
          status: 'resolved',
        });
        await waitStatus(childRunId, 'completed');
        const parent = await waitStatus(parentRunId, 'completed');
        expect(parent.childRuns).toEqual([
          expect.objectContaining({ runId: childRunId, status: 'completed' }),
        ]);
        const invoke = payloadsOf(await t1.listEvents(parentRunId), 'node.completed').find(
          (p) => p.nodeId === 'invoke-child',
        );
        expect(invoke).toMatchObject({
          outputs: { childRunId, result: { action: 'accept', approved: true } },
        });
      },
    );

    it.concurrent(
      'parent/child: a child cancelled on its own fails the parent deterministically (child_run_cancelled)',
      async () => {
        const { parentRunId, childRunId } = await parentWaitingOnChild();
        await t1.call('POST', `/v1/runs/${childRunId}/cancel`, {});
        const parent = await waitStatus(parentRunId, 'failed');
        expect(parent.error).toMatchObject({ code: 'child_run_cancelled' });
        const [childCancelled] = payloadsOf(await t1.listEvents(childRunId), 'run.cancelled');
        expect(childCancelled).not.toHaveProperty('parentRunId');
      },
    );
  },
);
