import { randomUUID } from 'node:crypto';
import { OpenWopApiError, OpenWopClient, type RunSnapshotBody } from '@openwop/sdk';
import { TEST_KEYS } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { waitStatus } from './e2e-kit';

// Values the contracts' schemas allow but no column or timer held: each once hung a run (a dropped
// projection, an interrupt never opened, a command never answered, a write refused). The gateway
// may now refuse some at the edge; either way the answer is prompt and clean, and the run is never
// left unresolvable: it completes, or fails with a clear error, and its projection is whole.

type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: OpenWopApiError };

/** The answer to a request: its value, or the API refusal, which must be a prompt 4xx in the envelope. */
async function outcome<T>(p: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    if (!(e instanceof OpenWopApiError)) throw e;
    expect(e.status).toBeGreaterThanOrEqual(400);
    expect(e.status).toBeLessThan(500);
    expect(typeof e.code).toBe('string');
    return { ok: false, error: e };
  }
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'odd values the core must hold, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let client: OpenWopClient;

    beforeAll(async () => {
      hut = await MODES[mode]();
      client = new OpenWopClient({ baseUrl: hut.host.gateways[0]!, apiKey: TEST_KEYS.t1 });
    });
    afterAll(async () => {
      await hut?.stop();
    });

    /** The run is whole: no projectionError, and its snapshot is as far as its events. */
    const expectWhole = (run: RunSnapshotBody) =>
      expect((run as { projectionError?: unknown }).projectionError).toBeUndefined();

    const register = (definition: Record<string, unknown>) =>
      outcome(client.call('POST', '/v1/workflows', definition));

    it('a conversation turn at ts 1e300: refused at the edge or stored; a later close completes the run', async () => {
      const id = `odd-ts-${mode}-${randomUUID().slice(0, 8)}`;
      const registered = await register({
        id,
        name: id,
        version: '1.0.0',
        nodes: [
          { id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'hi' } },
          { id: 'after', typeId: 'core.noop', config: {} },
        ],
        edges: [{ id: 'e1', sourceNodeId: 'talk', targetNodeId: 'after' }],
      });
      expect(registered.ok).toBe(true);
      const { runId } = await client.createRun({ workflowId: id });
      await waitStatus(client, runId, 'waiting-approval');
      const turn = await outcome(
        client.call('POST', `/v1/runs/${runId}:resolveInterrupt`, {
          nodeId: 'talk',
          operation: 'exchange',
          turn: { messageId: randomUUID(), from: 'user', role: 'user', content: 'x', ts: 1e300 },
        }),
      );
      if (!turn.ok) expect(turn.error.status).toBe(400);
      const closed = await client.call<{ status: string }>('POST', `/v1/runs/${runId}:resolveInterrupt`, {
        nodeId: 'talk',
        operation: 'close',
        outcome: { decided: true },
      });
      expect(closed.status).toBe('resolved');
      expectWhole(await waitStatus(client, runId, 'completed', 20_000));
      const transcript = await client.call<{ status: string; turns: { ts: number }[] }>(
        'GET',
        `/v1/runs/${runId}/conversations/${encodeURIComponent(`${runId}:talk:0`)}`,
      );
      expect(transcript.status).toBe('closed');
      expect(transcript.turns).toHaveLength(turn.ok ? 3 : 2);
    });

    it('a gate with timeoutMs 1e15: refused at the edge, or the run waits on a resolvable interrupt and completes', async () => {
      const id = `odd-timeout-${mode}-${randomUUID().slice(0, 8)}`;
      const registered = await register({
        id,
        name: id,
        version: '1.0.0',
        nodes: [{ id: 'gate', typeId: 'core.approvalGate', config: { timeoutMs: 1e15 } }],
        edges: [],
      });
      if (!registered.ok) {
        expect(registered.error.status).toBe(400);
        return;
      }
      const { runId } = await client.createRun({ workflowId: id });
      const waiting = await waitStatus(client, runId, ['waiting-approval', 'failed'], 20_000);
      if (waiting.status === 'failed') {
        expect(waiting.error).toEqual(
          expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
        );
        return;
      }
      expect(waiting.interrupt).toMatchObject({ nodeId: 'gate', kind: 'approval' });
      const resolved = await client.call<{ status: string }>('POST', `/v1/runs/${runId}/interrupts/gate`, {
        action: 'accept',
      });
      expect(resolved.status).toBe('resolved');
      expectWhole(await waitStatus(client, runId, 'completed', 20_000));
    });

    it('a resume value with top-level constructor, __proto__, toString, hasOwnProperty keys: answered at once, the run completes', async () => {
      const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
      await waitStatus(client, runId, 'waiting-approval');
      const started = Date.now();
      const answer = await outcome(
        client.call<{ status: string }>(
          'POST',
          `/v1/runs/${runId}/interrupts/gate`,
          JSON.parse(
            '{"resumeValue": {"constructor": {"action": "reject"}, "__proto__": {"action": "reject"}, "toString": 1, "hasOwnProperty": 2, "action": "accept"}}',
          ),
        ),
      );
      expect(Date.now() - started).toBeLessThan(10_000); // never the 15 s "no verdict" 503
      if (!answer.ok) {
        // Refused cleanly: nothing changed, the gate still takes a plain answer.
        expect((await client.getRun(runId)).status).toBe('waiting-approval');
        await client.call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' });
      } else {
        expect(answer.value.status).toBe('resolved');
      }
      const done = await waitStatus(client, runId, 'completed', 20_000);
      expectWhole(done);
      expect(done.outputs).toMatchObject({ action: 'accept', approved: true });
    });

    it('recursionLimit 8000 on a loop: refused at the edge, or the run ends failed with a clear error (its writes all land)', async () => {
      const id = `odd-loop-${mode}-${randomUUID().slice(0, 8)}`;
      const registered = await register({
        id,
        name: id,
        version: '1.0.0',
        nodes: ['s', 'a', 'b'].map((n) => ({ id: n, typeId: 'core.noop', config: {} })),
        edges: [
          { id: 'e0', sourceNodeId: 's', targetNodeId: 'a', triggerRule: 'any_success' },
          { id: 'e1', sourceNodeId: 'a', targetNodeId: 'b', triggerRule: 'any_success' },
          { id: 'e2', sourceNodeId: 'b', targetNodeId: 'a', triggerRule: 'any_success' },
        ],
      });
      expect(registered.ok).toBe(true);
      const created = await outcome(
        client.createRun({ workflowId: id, metadata: { configurable: { recursionLimit: 8000 } } }),
      );
      if (!created.ok) {
        expect(created.error.status).toBe(400);
        return;
      }
      const ended = await waitStatus(client, created.value.runId, ['failed', 'completed'], 60_000);
      expectWhole(ended);
      expect(ended.status).toBe('failed');
      expect(ended.error).toMatchObject({ code: 'recursion_limit_exceeded' });
      // The projection holds every event the engine wrote, up to the failure.
      const last = (ended as { lastSequence?: number }).lastSequence ?? 0;
      expect(last).toBeGreaterThan(100);
      const tail = await client.listEvents(created.value.runId, { after: last - 1 });
      expect(tail.map((e) => e.type)).toEqual(['run.failed']);
    });
  },
);
