import { randomUUID } from 'node:crypto';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { query } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

/** One HTTP answer: status, the idempotent-replay header and the parsed body. */
interface Answer {
  readonly status: number;
  readonly replay: string | null;
  readonly json: Record<string, unknown>;
}

/** A run event as `GET /v1/runs/{id}/events/poll` returns it. */
interface Event {
  readonly type: string;
  readonly sequence: number;
  readonly nodeId?: string | null;
  readonly payload?: Record<string, unknown>;
}

async function call(
  gateway: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TEST_KEYS.t1}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    replay: res.headers.get('openwop-idempotent-replay'),
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

const TERMINAL = ['completed', 'failed', 'cancelled'];
const TERMINAL_EVENTS = ['run.completed', 'run.failed', 'run.cancelled'];

/**
 * The run-lifecycle fixtures of `conformance/fixtures.md` and the behaviour the public suite's
 * runs-lifecycle, failure-path, multi-node-ordering, eventOrdering, idempotency, idempotencyRetry,
 * cancellation, bulk-cancel, interruptRace and replay scenarios check, on real Kafka and Postgres,
 * both modes. Written from the spec and the fixture contracts; the suite's files are not used.
 */
describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('core conformance fixtures, %s mode', (mode) => {
  let hut: HostUnderTest;
  const gw = () => hut.host.gateways[0]!;
  const get = (path: string) => call(gw(), 'GET', path);
  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    call(gw(), 'POST', path, body, headers);

  const start = async (workflowId: string, inputs?: Record<string, unknown>): Promise<string> => {
    const created = await post('/v1/runs', { workflowId, ...(inputs ? { inputs } : {}) });
    expect(created.status).toBe(201);
    return created.json.runId as string;
  };
  const snapshotWhen = (runId: string, ok: (s: Record<string, unknown>) => boolean, what: string) =>
    waitFor(
      async () => {
        const s = (await get(`/v1/runs/${runId}`)).json;
        return ok(s) ? s : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `run ${runId} ${what}` },
    );
  const terminal = (runId: string) =>
    snapshotWhen(runId, (s) => TERMINAL.includes(s.status as string), 'terminal');
  const events = async (runId: string, query = ''): Promise<Event[]> => {
    const res = await get(`/v1/runs/${runId}/events/poll${query}`);
    expect(res.status).toBe(200);
    return res.json.events as Event[];
  };
  const runsOf = async (workflowId: string): Promise<number> =>
    Number(
      (
        await query<{ n: string }>(hut.db.url, 'SELECT count(*) AS n FROM runs WHERE workflow_id = $1', [
          workflowId,
        ])
      )[0]!.n,
    );

  beforeAll(async () => {
    hut = await MODES[mode]({ ENGINE_TIMER_MS: '100' });
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('discovery lists the core fixtures; the replay side-effect fixture is not offered without the capability', async () => {
    const doc = (await get('/.well-known/openwop')).json as {
      fixtures: unknown[];
      replay?: { sideEffectSuppression?: string };
    };
    const ids = doc.fixtures.map((f) =>
      typeof f === 'string'
        ? f
        : ((f as { workflowId?: string; id?: string }).workflowId ?? (f as { id?: string }).id),
    );
    for (const id of [
      'conformance-noop',
      'conformance-identity',
      'conformance-delay',
      'conformance-failure',
      'conformance-multi-node',
      'conformance-idempotent',
      'conformance-cancellable',
      'conformance-capability-missing',
      'conformance-approval',
      'conformance-approval-refine',
      'conformance-approval-edit-accept',
      'conformance-clarification',
    ]) {
      expect(ids).toContain(id);
    }
    expect(ids).not.toContain('conformance-replay-side-effect');
    expect([undefined, 'none']).toContain(doc.replay?.sideEffectSuppression);
  });

  describe('run lifecycle', () => {
    it('noop: 201 with runId and status, completed, the snapshot echoes the run id; an unknown run is 404', async () => {
      const created = await post('/v1/runs', { workflowId: 'conformance-noop' });
      expect(created.status).toBe(201);
      expect(typeof created.json.runId).toBe('string');
      expect(typeof created.json.status).toBe('string');
      const done = await terminal(created.json.runId as string);
      expect([done.status, done.runId]).toEqual(['completed', created.json.runId]);
      expect((await get(`/v1/runs/no-such-run-${randomUUID()}`)).status).toBe(404);
    });

    it('noop events: run.started first, node.completed of core.noop, run.completed last and only once; stable across polls', async () => {
      const runId = await start('conformance-noop');
      await terminal(runId);
      const all = await events(runId);
      expect(all[0]?.type).toBe('run.started');
      expect(all.filter((e) => e.type === 'node.completed').map((e) => e.nodeId)).toEqual(['noop']);
      expect(all.filter((e) => TERMINAL_EVENTS.includes(e.type)).map((e) => e.type)).toEqual([
        'run.completed',
      ]);
      expect(all.at(-1)?.type).toBe('run.completed');
      const seqs = all.map((e) => e.sequence);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect((await events(runId)).map((e) => [e.sequence, e.type])).toEqual(
        all.map((e) => [e.sequence, e.type]),
      );
      // `lastSequence=0` reads what follows run.started.
      expect((await events(runId, '?lastSequence=0&timeout=1')).map((e) => e.sequence)).toEqual(
        seqs.slice(1),
      );
    });

    it('identity: variables.payload deep-equals the input payload', async () => {
      const payload = { text: 'ünïcode', list: [1, 2.5, null, { nested: true }], empty: {} };
      const done = await terminal(await start('conformance-identity', { payload }));
      expect(done.status).toBe('completed');
      expect((done.variables as Record<string, unknown>).payload).toEqual(payload);
    });

    it('failure: run.started, node.failed, run.failed in order; the snapshot error is {code, message} of strings', async () => {
      const created = await post('/v1/runs', { workflowId: 'conformance-failure' });
      expect(created.status).toBe(201);
      const runId = created.json.runId as string;
      const done = await terminal(runId);
      expect(done.status).toBe('failed');
      expect(done.error).toEqual({
        code: 'conformance_test_failure',
        message: 'Intentional conformance failure',
      });
      const order = (await events(runId))
        .map((e) => e.type)
        .filter((t) => ['run.started', 'node.failed', 'run.failed'].includes(t));
      expect(order).toEqual(['run.started', 'node.failed', 'run.failed']);
    });

    it('multi-node: node.completed of a, b, c in that order by sequence', async () => {
      const runId = await start('conformance-multi-node');
      expect((await terminal(runId)).status).toBe('completed');
      const completed = (await events(runId, '?lastSequence=0&timeout=1'))
        .filter((e) => e.type === 'node.completed')
        .sort((x, y) => x.sequence - y.sequence)
        .map((e) => e.nodeId);
      expect(completed).toEqual(['a', 'b', 'c']);
    });

    it('capability-missing: failed with capability_not_provided naming conformance.never-provided, the node never ran', async () => {
      const runId = await start('conformance-capability-missing');
      const done = await terminal(runId);
      expect(done.status).toBe('failed');
      expect((done.error as { code: string }).code).toBe('capability_not_provided');
      expect((done.error as { message: string }).message).toContain('conformance.never-provided');
      const types = (await events(runId)).map((e) => e.type);
      expect(types.slice(-2)).toEqual(['node.failed', 'run.failed']);
      expect(types).not.toContain('node.completed');
    });

    it('delay: running while the delay is in flight, completed after', async () => {
      const runId = await start('conformance-delay', { delayMs: 3_000 });
      expect((await get(`/v1/runs/${runId}`)).json.status).toBe('running');
      expect((await terminal(runId)).status).toBe('completed');
    });
  });

  describe('Idempotency-Key with conformance-idempotent', () => {
    it('same key and body: the same run, the replay marked; first answer says false', async () => {
      const key = `core-${randomUUID()}`;
      const body = { workflowId: 'conformance-idempotent', inputs: { nonce: 'abc-123' } };
      const before = await runsOf('conformance-idempotent');
      const first = await post('/v1/runs', body, { 'Idempotency-Key': key });
      const again = await post('/v1/runs', body, { 'Idempotency-Key': key });
      expect([first.status, first.replay]).toEqual([201, 'false']);
      expect([again.status, again.replay, again.json.runId]).toEqual([201, 'true', first.json.runId]);
      expect(await runsOf('conformance-idempotent')).toBe(before + 1);
      expect((await terminal(first.json.runId as string)).status).toBe('completed');
    });

    it('same key, another body: 409 idempotency_key_mismatch with no runId', async () => {
      const key = `core-${randomUUID()}`;
      expect(
        (
          await post(
            '/v1/runs',
            { workflowId: 'conformance-idempotent', inputs: { nonce: 'first' } },
            { 'Idempotency-Key': key },
          )
        ).status,
      ).toBe(201);
      const other = await post(
        '/v1/runs',
        { workflowId: 'conformance-idempotent', inputs: { nonce: 'DIFFERENT' } },
        { 'Idempotency-Key': key },
      );
      expect([other.status, other.json.error, other.json.runId]).toEqual([
        409,
        'idempotency_key_mismatch',
        undefined,
      ]);
    });

    it('five retries of one request collapse to one run', async () => {
      const key = `core-${randomUUID()}`;
      const body = { workflowId: 'conformance-idempotent', inputs: { nonce: 'retry-budget' } };
      const answers: Answer[] = [];
      for (let i = 0; i < 5; i++) answers.push(await post('/v1/runs', body, { 'Idempotency-Key': key }));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(answers.map((a) => a.json.runId)).size).toBe(1);
      expect(answers.map((a) => a.replay)).toEqual(['false', 'true', 'true', 'true', 'true']);
    });
  });

  describe('cancel and bulk cancel', () => {
    it('cancellable: running, cancel 200 (cancelled or cancelling), then cancelled with one run.cancelled; the next node never runs', async () => {
      const runId = await start('conformance-cancellable', { delayMs: 10_000 });
      await snapshotWhen(runId, (s) => s.status === 'running', 'running');
      const cancel = await post(`/v1/runs/${runId}/cancel`, { reason: 'conformance-core' });
      expect(cancel.status).toBe(200);
      expect(['cancelled', 'cancelling']).toContain(cancel.json.status);
      expect((await snapshotWhen(runId, (s) => s.status === 'cancelled', 'cancelled')).status).toBe(
        'cancelled',
      );
      const all = await events(runId);
      expect(all.filter((e) => e.type === 'run.cancelled')).toHaveLength(1);
      expect(all.at(-1)?.type).toBe('run.cancelled');
      expect(all.some((e) => e.nodeId === 'done' && e.type === 'node.started')).toBe(false);
    });

    it('cancel of a completed run is 200 with its terminal status; of an unknown run 404', async () => {
      const runId = await start('conformance-noop');
      await terminal(runId);
      const again = await post(`/v1/runs/${runId}/cancel`, {});
      expect([again.status, again.json.status]).toEqual([200, 'completed']);
      expect((await post(`/v1/runs/no-such-run-${randomUUID()}/cancel`, {})).status).toBe(404);
    });

    it('bulk cancel: a cancellable started without delayMs waits its 30 s default and is cancelled; an unknown id is not_found; results in order', async () => {
      const inflight = await start('conformance-cancellable', { delaySeconds: 30 });
      const unknown = `run-does-not-exist-${randomUUID()}`;
      const res = await post('/v1/runs:bulk-cancel', {
        runIds: [inflight, unknown],
        reason: 'conformance-core',
      });
      expect(res.status).toBe(200);
      const results = res.json.results as {
        runId: string;
        ok: boolean;
        status?: string;
        error?: { code?: string };
      }[];
      expect(results.map((r) => [r.runId, r.ok])).toEqual([
        [inflight, true],
        [unknown, false],
      ]);
      expect(['cancelled', 'cancelling']).toContain(results[0]!.status);
      expect(results[1]!.error?.code).toBe('not_found');
      const again = await post('/v1/runs:bulk-cancel', { runIds: [inflight] });
      expect(again.status).toBe(200);
      expect((again.json.results as { ok: boolean }[])[0]!.ok).toBe(true);
      expect((await snapshotWhen(inflight, (s) => s.status === 'cancelled', 'cancelled')).status).toBe(
        'cancelled',
      );
    });

    it('bulk cancel refuses an empty list and more than the cap, naming the cap', async () => {
      const empty = await post('/v1/runs:bulk-cancel', { runIds: [] });
      expect([empty.status, empty.json.error]).toEqual([400, 'validation_error']);
      const over = await post('/v1/runs:bulk-cancel', {
        runIds: Array.from({ length: 101 }, (_, i) => `run-overflow-${i}`),
      });
      expect([over.status, over.json.error]).toEqual([400, 'validation_error']);
      expect((over.json.details as { maxRunIds: number }).maxRunIds).toBeGreaterThanOrEqual(1);
    });
  });

  describe('approvals and clarification', () => {
    const waiting = (runId: string, status: string) =>
      snapshotWhen(runId, (s) => s.status === status, status);

    it('approval: waiting-approval, a resolve of another shape is 400 and changes nothing, accept completes it', async () => {
      const runId = await start('conformance-approval');
      const s = await waiting(runId, 'waiting-approval');
      expect(s.currentNodeId).toBe('gate');
      for (const bad of [
        {},
        { action: 'maybe' },
        { action: 'refine', refineFeedback: { scope: 'whole', text: 'x' } },
        { action: 'accept', extra: 1 },
        { resumeValue: { action: 'accept', feedbak: 'typo' } },
      ]) {
        const refused = await post(`/v1/runs/${runId}/interrupts/gate`, bad);
        expect([refused.status, refused.json.error]).toEqual([400, 'validation_error']);
      }
      expect((await get(`/v1/runs/${runId}`)).json.status).toBe('waiting-approval');
      expect((await post(`/v1/runs/${runId}/interrupts/gate`, { action: 'accept' })).status).toBe(200);
      expect((await terminal(runId)).status).toBe('completed');
      const types = (await events(runId)).map((e) => e.type);
      expect(types).toEqual(
        expect.arrayContaining([
          'interrupt.requested',
          'approval.requested',
          'approval.received',
          'interrupt.resolved',
        ]),
      );
    });

    it('approval-refine: refine without refineFeedback is refused; with it, the resolution carries action and feedback', async () => {
      const runId = await start('conformance-approval-refine');
      await waiting(runId, 'waiting-approval');
      const bare = await post(`/v1/runs/${runId}/interrupts/gate`, { action: 'refine' });
      expect([bare.status, bare.json.error]).toEqual([400, 'validation_error']);
      const refineFeedback = { scope: 'whole', text: 'tighten the second paragraph' };
      expect(
        (await post(`/v1/runs/${runId}/interrupts/gate`, { action: 'refine', refineFeedback })).status,
      ).toBe(200);
      expect((await terminal(runId)).status).toBe('completed');
      const resolved = (await events(runId)).find((e) => e.type === 'interrupt.resolved')!;
      expect(resolved.payload?.resumeValue).toMatchObject({ action: 'refine', refineFeedback });
    });

    it('approval-edit-accept: edit-accept without editedArtifactData is refused; with it, the resolution carries action and data', async () => {
      const runId = await start('conformance-approval-edit-accept');
      await waiting(runId, 'waiting-approval');
      const bare = await post(`/v1/runs/${runId}/interrupts/gate`, { action: 'edit-accept' });
      expect([bare.status, bare.json.error]).toEqual([400, 'validation_error']);
      const editedArtifactData = { title: 'edited', body: ['a', 'b'] };
      expect(
        (await post(`/v1/runs/${runId}/interrupts/gate`, { action: 'edit-accept', editedArtifactData }))
          .status,
      ).toBe(200);
      expect((await terminal(runId)).status).toBe('completed');
      const resolved = (await events(runId)).find((e) => e.type === 'interrupt.resolved')!;
      expect(resolved.payload?.resumeValue).toMatchObject({ action: 'edit-accept', editedArtifactData });
    });

    it('clarification: clarification.requested with q1, answered, clarification.resolved, completed', async () => {
      const runId = await start('conformance-clarification');
      const s = await waiting(runId, 'waiting-input');
      const requested = (await events(runId)).find((e) => e.type === 'clarification.requested')!;
      expect(JSON.stringify(requested.payload)).toContain('What is your favorite color?');
      expect(
        (await post(`/v1/runs/${runId}/interrupts/${s.currentNodeId as string}`, { answers: { q1: 'blue' } }))
          .status,
      ).toBe(200);
      expect((await terminal(runId)).status).toBe('completed');
      expect((await events(runId)).map((e) => e.type)).toContain('clarification.resolved');
    });

    it('cancel racing a resolve: one wins, the run ends as the winner says, cancel answers 200', async () => {
      for (let i = 0; i < 3; i++) {
        const runId = await start('conformance-approval');
        const s = await waiting(runId, 'waiting-approval');
        const [cancel, resolve] = await Promise.all([
          post(`/v1/runs/${runId}/cancel`, { reason: 'race' }),
          post(`/v1/runs/${runId}/approvals/${s.currentNodeId as string}`, { action: 'accept' }),
        ]);
        expect(cancel.status).toBe(200);
        // A resolve that lost to the cancel is 409 interrupt_already_resolved (RFC 0213; v1 prose said 422).
        expect([200, 409]).toContain(resolve.status);
        const done = await terminal(runId);
        // The run ends as the cancel's answer says: `completed` when the answer came first, else cancelled.
        expect(done.status).toBe(cancel.json.status === 'completed' ? 'completed' : 'cancelled');
        if (resolve.status !== 200) {
          expect(done.status).toBe('cancelled');
          expect(resolve.json.error).toBe('interrupt_already_resolved');
        }
        const all = await events(runId);
        expect(all.filter((e) => TERMINAL_EVENTS.includes(e.type))).toHaveLength(1);
      }
    });
  });

  describe('fork', () => {
    const fork = (runId: string, body: Record<string, unknown>) => post(`/v1/runs/${runId}:fork`, body);
    const shape = (all: readonly Event[]) =>
      all.map((e) => ({ type: e.type, nodeId: e.nodeId ?? null, payload: e.payload ?? null }));

    it('replay from 0: a new run echoing source and mode, completed; two replays give identical event lists', async () => {
      const source = await start('conformance-noop');
      await terminal(source);
      const forks: string[] = [];
      for (let i = 0; i < 2; i++) {
        const f = await fork(source, { fromSeq: 0, mode: 'replay' });
        expect(f.status).toBe(201);
        expect([f.json.sourceRunId, f.json.mode]).toEqual([source, 'replay']);
        expect(f.json.runId).not.toBe(source);
        expect((await terminal(f.json.runId as string)).status).toBe('completed');
        forks.push(f.json.runId as string);
      }
      expect(shape(await events(forks[0]!))).toEqual(shape(await events(forks[1]!)));
    });

    it('branch from 0 with an empty overlay completes', async () => {
      const source = await start('conformance-noop');
      await terminal(source);
      const f = await fork(source, { fromSeq: 0, mode: 'branch', runOptionsOverlay: {} });
      expect([f.status, f.json.mode]).toEqual([201, 'branch']);
      expect((await terminal(f.json.runId as string)).status).toBe('completed');
    });

    it('refusals: negative fromSeq 400, past the log 422, replay with an overlay 400, unknown source 404', async () => {
      const source = await start('conformance-noop');
      await terminal(source);
      expect((await fork(source, { fromSeq: -1, mode: 'branch' })).status).toBe(400);
      expect((await fork(source, { fromSeq: 99_999, mode: 'replay' })).status).toBe(422);
      expect(
        (
          await fork(source, {
            fromSeq: 0,
            mode: 'replay',
            runOptionsOverlay: { configurable: { recursionLimit: 50 } },
          })
        ).status,
      ).toBe(400);
      expect((await fork(`no-such-run-${randomUUID()}`, { fromSeq: 0, mode: 'replay' })).status).toBe(404);
    });

    it('from after b completed (multi-node): replay and branch complete; two replays re-execute identical tails', async () => {
      const source = await start('conformance-multi-node');
      await terminal(source);
      const bDone = (await events(source)).find((e) => e.type === 'node.completed' && e.nodeId === 'b')!;
      const fromSeq = bDone.sequence + 1;
      const tails: ReturnType<typeof shape>[] = [];
      for (let i = 0; i < 2; i++) {
        const f = await fork(source, { fromSeq, mode: 'replay' });
        expect(f.status).toBe(201);
        expect((await terminal(f.json.runId as string)).status).toBe('completed');
        const all = await events(f.json.runId as string);
        expect(all.filter((e) => e.type === 'replay.diverged')).toEqual([]);
        tails.push(shape(all.filter((e) => e.sequence >= fromSeq)));
      }
      expect(tails[0]).toEqual(tails[1]);
      expect(tails[0]!.filter((e) => e.type === 'node.completed').map((e) => e.nodeId)).toEqual(['c']);
      const branch = await fork(source, { fromSeq, mode: 'branch', runOptionsOverlay: {} });
      expect(branch.status).toBe(201);
      expect((await terminal(branch.json.runId as string)).status).toBe('completed');
    });
  });
});
