import { randomUUID } from 'node:crypto';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';
import { query } from './e2e-kit';

/** One HTTP answer, with its headers and parsed body. */
interface Answer {
  readonly status: number;
  readonly replay: string | null;
  readonly location: string | null;
  readonly json: Record<string, unknown>;
}

async function post(
  gateway: string,
  path: string,
  body: unknown,
  options: { key?: string; apiKey?: string } = {},
): Promise<Answer> {
  const res = await fetch(`${gateway}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${options.apiKey ?? TEST_KEYS.t1}`,
      'content-type': 'application/json',
      ...(options.key !== undefined ? { 'idempotency-key': options.key } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    replay: res.headers.get('openwop-idempotent-replay'),
    location: res.headers.get('location'),
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

async function getStatus(gateway: string, runId: string, apiKey: string = TEST_KEYS.t1): Promise<string> {
  const res = await fetch(`${gateway}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return ((await res.json()) as { status: string }).status;
}

function waitStatus(gateway: string, runId: string, wanted: string, apiKey?: string): Promise<string> {
  return waitFor(async () => ((await getStatus(gateway, runId, apiKey)) === wanted ? wanted : undefined), {
    timeoutMs: 15_000,
    what: `run ${runId} ${wanted}`,
  });
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'Idempotency-Key, cancel and bulk cancel, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let gw: string;
    /** Runs of a tenant in the read model (the projection is up to date when `POST /v1/runs` answers). */
    const runCount = async (tenant = 't1'): Promise<number> =>
      Number(
        (
          await query<{ n: string }>(hut.db.url, 'SELECT count(*) AS n FROM runs WHERE tenant = $1', [tenant])
        )[0]!.n,
      );
    const cancelledEvents = async (runId: string): Promise<number> =>
      Number(
        (
          await query<{ n: string }>(
            hut.db.url,
            "SELECT count(*) AS n FROM run_events WHERE run_id = $1 AND doc->>'type' = 'run.cancelled'",
            [runId],
          )
        )[0]!.n,
      );
    const newRun = async (workflowId: string, apiKey?: string): Promise<string> => {
      const created = await post(gw, '/v1/runs', { workflowId }, apiKey ? { apiKey } : {});
      expect(created.status).toBe(201);
      return created.json.runId as string;
    };

    beforeAll(async () => {
      hut = await MODES[mode]();
      gw = hut.host.gateways[0]!;
    });
    afterAll(async () => {
      await hut?.stop();
    });

    describe('POST /v1/runs', () => {
      it('the same key and body twice: one run; the second answer is the first, marked as a replay', async () => {
        const key = randomUUID();
        const body = { workflowId: 'conformance-noop', inputs: { nonce: 'abc-123' } };
        const before = await runCount();
        const first = await post(gw, '/v1/runs', body, { key });
        const second = await post(
          gw,
          '/v1/runs',
          { inputs: { nonce: 'abc-123' }, workflowId: 'conformance-noop' },
          { key },
        );
        expect([first.status, first.replay]).toEqual([201, 'false']);
        expect([second.status, second.replay]).toEqual([201, 'true']);
        expect(second.json).toEqual(first.json);
        expect(second.location).toBe(first.location);
        expect(await runCount()).toBe(before + 1);
      });

      it('the same key with another body: 409 idempotency_key_mismatch, no run, no stored body', async () => {
        const key = randomUUID();
        await post(gw, '/v1/runs', { workflowId: 'conformance-noop', inputs: { nonce: 'first' } }, { key });
        const before = await runCount();
        const other = await post(
          gw,
          '/v1/runs',
          { workflowId: 'conformance-noop', inputs: { nonce: 'DIFFERENT' } },
          { key },
        );
        expect(other.status).toBe(409);
        expect(other.json.error).toBe('idempotency_key_mismatch');
        expect(other.json.runId).toBeUndefined();
        expect(await runCount()).toBe(before);
      });

      it('keys are scoped by tenant: another tenant reusing a key gets its own run', async () => {
        const key = randomUUID();
        const mine = await post(
          gw,
          '/v1/runs',
          { workflowId: 'conformance-noop', inputs: { nonce: 't1' } },
          { key },
        );
        const theirs = await post(
          gw,
          '/v1/runs',
          { workflowId: 'conformance-noop', inputs: { nonce: 't2' } },
          { key, apiKey: TEST_KEYS.t2 },
        );
        expect([mine.status, theirs.status, theirs.replay]).toEqual([201, 201, 'false']);
        expect(theirs.json.runId).not.toBe(mine.json.runId);
      });

      it('concurrent requests with one key, through every gateway: one run, every answer carries it', async () => {
        const key = randomUUID();
        const body = { workflowId: 'conformance-noop', inputs: { nonce: 'concurrent' } };
        const before = await runCount();
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            post(hut.host.gateways[i % hut.host.gateways.length]!, '/v1/runs', body, { key }),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
        expect(new Set(answers.map((a) => a.json.runId)).size).toBe(1);
        expect(answers.filter((a) => a.replay === 'false')).toHaveLength(1);
        expect(await runCount()).toBe(before + 1);
      });

      it('a malformed key is 400 validation_error and creates nothing', async () => {
        const before = await runCount();
        for (const key of ['k'.repeat(256), 'two words']) {
          const bad = await post(gw, '/v1/runs', { workflowId: 'conformance-noop' }, { key });
          expect([bad.status, bad.json.error]).toEqual([400, 'validation_error']);
        }
        expect(await runCount()).toBe(before);
      });

      it('a refused request (400) is not recorded: the key still works for a corrected request', async () => {
        const key = randomUUID();
        const refused = await post(gw, '/v1/runs', { workflowId: 'no-such-workflow' }, { key });
        expect(refused.status).toBe(400);
        const corrected = await post(gw, '/v1/runs', { workflowId: 'conformance-noop' }, { key });
        expect([corrected.status, corrected.replay]).toEqual([201, 'false']);
      });
    });

    describe('the resolve routes', () => {
      it('a resolve retried with its key replays the first answer instead of 409 interrupt_already_resolved', async () => {
        const runId = await newRun('conformance-approval');
        await waitStatus(gw, runId, 'waiting-approval');
        const key = randomUUID();
        const path = `/v1/runs/${runId}/interrupts/gate`;
        const first = await post(gw, path, { action: 'accept' }, { key });
        const retried = await post(gw, path, { action: 'accept' }, { key });
        expect([first.status, first.replay, retried.status, retried.replay]).toEqual([
          200,
          'false',
          200,
          'true',
        ]);
        expect(retried.json).toEqual(first.json);
        const unkeyed = await post(gw, path, { action: 'accept' });
        expect([unkeyed.status, unkeyed.json.error]).toEqual([409, 'interrupt_already_resolved']);
        const otherAnswer = await post(gw, path, { action: 'reject' }, { key });
        expect([otherAnswer.status, otherAnswer.json.error]).toEqual([409, 'idempotency_key_mismatch']);
        await waitStatus(gw, runId, 'completed');
      });
    });

    describe('POST /v1/runs/{runId}/cancel', () => {
      it('cancelling a completed run answers 200 with its terminal status and changes nothing', async () => {
        const runId = await newRun('conformance-noop');
        await waitStatus(gw, runId, 'completed');
        const cancel = await post(gw, `/v1/runs/${runId}/cancel`, {});
        expect([cancel.status, cancel.json]).toEqual([200, { runId, status: 'completed' }]);
        expect(await getStatus(gw, runId)).toBe('completed');
        expect(await cancelledEvents(runId)).toBe(0);
      });

      it('an accepted cancel answers 200; cancelling again answers 200 cancelled; the run is cancelled once', async () => {
        const runId = await newRun('conformance-approval');
        await waitStatus(gw, runId, 'waiting-approval');
        const first = await post(gw, `/v1/runs/${runId}/cancel`, { reason: 'no longer needed' });
        expect(first.status).toBe(200);
        expect(['cancelled', 'cancelling']).toContain(first.json.status);
        await waitStatus(gw, runId, 'cancelled');
        const again = await post(gw, `/v1/runs/${runId}/cancel`, {});
        expect([again.status, again.json]).toEqual([200, { runId, status: 'cancelled' }]);
        expect(await cancelledEvents(runId)).toBe(1);
      });

      it('with an Idempotency-Key, a retried cancel replays the first answer', async () => {
        const runId = await newRun('conformance-approval');
        await waitStatus(gw, runId, 'waiting-approval');
        const key = randomUUID();
        const first = await post(gw, `/v1/runs/${runId}/cancel`, {}, { key });
        const retried = await post(gw, `/v1/runs/${runId}/cancel`, {}, { key });
        expect([first.status, retried.status, retried.replay]).toEqual([200, 200, 'true']);
        expect(retried.json).toEqual(first.json);
        const otherRun = await newRun('conformance-approval');
        const sameKeyOtherRun = await post(gw, `/v1/runs/${otherRun}/cancel`, {}, { key });
        expect([sameKeyOtherRun.status, sameKeyOtherRun.json.error]).toEqual([
          409,
          'idempotency_key_mismatch',
        ]);
      });

      it('a run of another tenant is 404 not_found, and stays as it was', async () => {
        const theirs = await newRun('conformance-approval', TEST_KEYS.t2);
        await waitStatus(gw, theirs, 'waiting-approval', TEST_KEYS.t2);
        const cancel = await post(gw, `/v1/runs/${theirs}/cancel`, {});
        expect([cancel.status, cancel.json.error]).toEqual([404, 'not_found']);
        expect(await getStatus(gw, theirs, TEST_KEYS.t2)).toBe('waiting-approval');
      });
    });

    describe('POST /v1/runs:bulk-cancel', () => {
      it('waiting, completed, unknown and other-tenant ids: per-id results in order, each waiting run cancelled once', async () => {
        const waitingA = await newRun('conformance-approval');
        const waitingB = await newRun('conformance-approval');
        const completed = await newRun('conformance-noop');
        const theirs = await newRun('conformance-approval', TEST_KEYS.t2);
        await waitStatus(gw, waitingA, 'waiting-approval');
        await waitStatus(gw, waitingB, 'waiting-approval');
        await waitStatus(gw, completed, 'completed');
        await waitStatus(gw, theirs, 'waiting-approval', TEST_KEYS.t2);
        const unknown = 'run-does-not-exist-xxxxxxxx';
        const runIds = [waitingA, completed, unknown, theirs, waitingB];

        const bulk = await post(gw, '/v1/runs:bulk-cancel', { runIds, reason: 'bulk' });
        expect(bulk.status).toBe(200);
        const results = bulk.json.results as Record<string, unknown>[];
        expect(results.map((r) => r.runId)).toEqual(runIds);
        expect(results.map((r) => r.ok)).toEqual([true, false, false, false, true]);
        expect(['cancelled', 'cancelling']).toContain(results[0]!.status);
        expect(['cancelled', 'cancelling']).toContain(results[4]!.status);
        expect(results[1]!.error).toMatchObject({
          error: 'run_terminal',
          code: 'run_terminal',
          details: { runStatus: 'completed' },
        });
        // Another tenant's run reads exactly as an unknown one: nothing about it leaks.
        const notFound = (id: string) => ({
          runId: id,
          ok: false,
          error: { error: 'not_found', code: 'not_found', message: `Run ${id} not found.` },
        });
        expect(results[2]).toEqual(notFound(unknown));
        expect(results[3]).toEqual(notFound(theirs));

        await waitStatus(gw, waitingA, 'cancelled');
        await waitStatus(gw, waitingB, 'cancelled');
        expect(await getStatus(gw, completed)).toBe('completed');
        expect(await getStatus(gw, theirs, TEST_KEYS.t2)).toBe('waiting-approval');

        // Naturally idempotent: the same request again answers the cancelled runs `ok: true, cancelled`.
        const again = await post(gw, '/v1/runs:bulk-cancel', { runIds });
        const againResults = again.json.results as Record<string, unknown>[];
        expect(again.status).toBe(200);
        expect(againResults[0]).toEqual({ runId: waitingA, ok: true, status: 'cancelled' });
        expect(againResults[4]).toEqual({ runId: waitingB, ok: true, status: 'cancelled' });
        expect(await cancelledEvents(waitingA)).toBe(1);
        expect(await cancelledEvents(waitingB)).toBe(1);
        expect(await cancelledEvents(theirs)).toBe(0);
      });

      it('with an Idempotency-Key, a retried bulk cancel replays the first answer', async () => {
        const runId = await newRun('conformance-approval');
        await waitStatus(gw, runId, 'waiting-approval');
        const key = randomUUID();
        const first = await post(gw, '/v1/runs:bulk-cancel', { runIds: [runId] }, { key });
        const retried = await post(gw, '/v1/runs:bulk-cancel', { runIds: [runId] }, { key });
        expect([first.status, retried.status, retried.replay]).toEqual([200, 200, 'true']);
        expect(retried.json).toEqual(first.json);
      });

      it('an empty, over-cap or malformed runIds is 400 validation_error (over the cap with details.maxRunIds)', async () => {
        const empty = await post(gw, '/v1/runs:bulk-cancel', { runIds: [] });
        expect([empty.status, empty.json.error]).toEqual([400, 'validation_error']);
        const over = await post(gw, '/v1/runs:bulk-cancel', {
          runIds: Array.from({ length: 101 }, (_, i) => `run-${i}`),
        });
        expect([over.status, over.json.error]).toEqual([400, 'validation_error']);
        expect((over.json.details as { maxRunIds: number }).maxRunIds).toBe(100);
        const notStrings = await post(gw, '/v1/runs:bulk-cancel', { runIds: [1, 2] });
        expect([notStrings.status, notStrings.json.error]).toEqual([400, 'validation_error']);
        const missing = await post(gw, '/v1/runs:bulk-cancel', {});
        expect([missing.status, missing.json.error]).toEqual([400, 'validation_error']);
      });

      it('is listed by discovery', async () => {
        const doc = (await (await fetch(`${gw}/.well-known/openwop`)).json()) as {
          endpoints?: { method: string; path: string }[];
        };
        expect(doc.endpoints).toContainEqual(
          expect.objectContaining({ method: 'POST', path: '/v1/runs:bulk-cancel' }),
        );
      });
    });
  },
);

describe('Idempotency-Key across gateways and retryable outcomes, distributed mode', () => {
  let hut: HostUnderTest;
  beforeAll(async () => {
    // A short command timeout, so the engine's absence answers 503 quickly.
    hut = await MODES.distributed({ COMMAND_TIMEOUT_MS: '3000' });
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('a key sent to one gateway and retried at the other: one run, the replay comes from the shared record', async () => {
    expect(hut.host.gateways).toHaveLength(2);
    const [a, b] = hut.host.gateways as [string, string];
    const key = randomUUID();
    const body = { workflowId: 'conformance-noop', inputs: { nonce: 'two-gateways' } };
    const first = await post(a, '/v1/runs', body, { key });
    const second = await post(b, '/v1/runs', body, { key });
    expect([first.status, first.replay, second.status, second.replay]).toEqual([201, 'false', 201, 'true']);
    expect(second.json).toEqual(first.json);
    const mismatch = await post(b, '/v1/runs', { ...body, inputs: { nonce: 'other' } }, { key });
    expect([mismatch.status, mismatch.json.error]).toEqual([409, 'idempotency_key_mismatch']);
  });

  it('a retryable outcome (503, no engine) is not replayed: the retry executes, and its success is what replays', async () => {
    const [a, b] = hut.host.gateways as [string, string];
    const engines = hut.host.processes.filter((p) => p.name === 'engine');
    expect(engines.length).toBeGreaterThan(0);
    await Promise.all(engines.map((p) => p.kill('SIGKILL')));
    const key = randomUUID();
    const body = { workflowId: 'conformance-noop', inputs: { nonce: 'retryable' } };
    const unavailable = await post(a, '/v1/runs', body, { key });
    expect([unavailable.status, unavailable.json.error]).toEqual([503, 'unavailable']);
    const again = await post(b, '/v1/runs', body, { key });
    expect([again.status, again.replay]).toEqual([503, 'false']); // executed again, not served from the record

    await Promise.all(engines.map(() => hut.host.restart('engine')));
    const success = await waitFor(
      async () => {
        const r = await post(a, '/v1/runs', body, { key });
        return r.status === 503 ? undefined : r;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the engine back and the retry executed' },
    );
    expect([success.status, success.replay]).toEqual([201, 'false']);
    const replayed = await post(b, '/v1/runs', body, { key });
    expect([replayed.status, replayed.replay]).toEqual([201, 'true']);
    expect(replayed.json.runId).toBe(success.json.runId);
  });
});
