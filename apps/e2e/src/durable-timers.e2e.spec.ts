import { TEST_KEYS, waitFor, type AppProcess } from '@openwop/testing';
import { callGateway as call, query } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

/** Short delays: long enough to act during them, short enough to keep the suite quick. */
const DELAY_MS = 2_000;
/** The cancel test's delay: the cancel must land inside it even when a cold distributed stack is slow. */
const CANCEL_DELAY_MS = 5_000;

/**
 * Durable timers (`core.delay`) and operator pause/resume, both modes, real Kafka and Postgres:
 * the delay fixtures behave as `conformance/fixtures.md` says, a delay outlives kill -9 of whoever
 * holds it and still continues its run exactly once, cancel and pause work during a delay, and the
 * pause/resume `409` rules of rest-endpoints.md hold.
 */
describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'durable timers and pause/resume, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    const gw = () => hut.host.gateways[0]!;

    const start = async (workflowId: string, delayMs = DELAY_MS): Promise<string> => {
      const created = await call(gw(), 'POST', '/v1/runs', { workflowId, inputs: { delayMs } });
      expect(created.status).toBe(201);
      return created.json.runId as string;
    };
    const status = async (runId: string): Promise<string> =>
      (await call(gw(), 'GET', `/v1/runs/${runId}`)).json.status as string;
    const waitStatus = (runId: string, wanted: string, timeoutMs = 20_000) =>
      waitFor(async () => ((await status(runId).catch(() => undefined)) === wanted ? wanted : undefined), {
        timeoutMs,
        intervalMs: 100,
        what: `run ${runId} ${wanted}`,
      });
    /** How many events of each type (node-scoped ones as `type@node`) the run log holds. */
    const counts = async (runId: string): Promise<Record<string, number>> => {
      const rows = await query<{ k: string; n: string }>(
        hut.db.url,
        `SELECT type || coalesce('@' || node_id, '') AS k, count(*) AS n FROM run_events WHERE run_id = $1 GROUP BY 1`,
        [runId],
      );
      return Object.fromEntries(rows.map((r) => [r.k, Number(r.n)]));
    };
    const timerFields = async (runId: string, event: string) =>
      (
        await query<{ fields: { dueAt?: string; timerKey: string } }>(
          hut.db.url,
          "SELECT doc->'payload'->'fields' AS fields FROM run_events WHERE run_id = $1 AND doc->'payload'->'fields'->>'event' = $2",
          [runId, event],
        )
      )[0]?.fields;
    const armedTimers = async (runId: string) =>
      Number(
        (
          await query<{ n: string }>(hut.db.url, 'SELECT count(*) AS n FROM run_timers WHERE run_id = $1', [
            runId,
          ])
        )[0]!.n,
      );

    beforeAll(async () => {
      hut = await MODES[mode]({ ENGINE_TIMER_MS: '100' });
    });
    afterAll(async () => {
      await hut?.stop();
    });

    it('discovery lists the delay fixtures and the pause/resume routes', async () => {
      const doc = (await call(gw(), 'GET', '/.well-known/openwop')).json as {
        fixtures?: string[] | { workflowId?: string; id?: string }[];
        endpoints?: { method: string; path: string }[];
      };
      const fixtureIds = JSON.stringify(doc.fixtures);
      expect(fixtureIds).toContain('conformance-delay');
      expect(fixtureIds).toContain('conformance-cancellable');
      const paths = (doc.endpoints ?? []).map((e) => `${e.method} ${e.path}`);
      expect(paths).toEqual(
        expect.arrayContaining(['POST /v1/runs/{runId}:pause', 'POST /v1/runs/{runId}:resume']),
      );
    });

    it('conformance-delay is running during its delay and completes once after it', async () => {
      const runId = await start('conformance-delay');
      expect(await status(runId)).toBe('running');
      const scheduled = await waitFor(() => timerFields(runId, 'timer.scheduled'), {
        what: 'the timer to be recorded',
      });
      expect(await armedTimers(runId)).toBe(1);
      await waitStatus(runId, 'completed');
      const [times] = await query<{ started: string; completed: string }>(
        hut.db.url,
        `SELECT min(doc->>'timestamp') FILTER (WHERE type = 'run.started') AS started,
              min(doc->>'timestamp') FILTER (WHERE type = 'run.completed') AS completed
       FROM run_events WHERE run_id = $1`,
        [runId],
      );
      // Not before its time: the firing is decided at or after the due instant recorded at the start.
      expect(Date.parse(times!.completed)).toBeGreaterThanOrEqual(Date.parse(scheduled.dueAt!));
      expect(Date.parse(scheduled.dueAt!) - Date.parse(times!.started)).toBe(DELAY_MS);
      expect(await counts(runId)).toMatchObject({
        'node.started@wait': 1,
        'node.completed@wait': 1,
        'run.completed': 1,
      });
      expect(await armedTimers(runId)).toBe(0);
    });

    it('conformance-delay with delayMs 0 completes at once; an out-of-range delayMs fails the run validation_error', async () => {
      await waitStatus(await start('conformance-delay', 0), 'completed');
      const bad = await start('conformance-delay', -5);
      await waitStatus(bad, 'failed');
      expect((await call(gw(), 'GET', `/v1/runs/${bad}`)).json.error).toMatchObject({
        code: 'validation_error',
      });
    });

    it('cancel during a delay ends the run cancelled, drops its timer, and the run never continues', async () => {
      const runId = await start('conformance-cancellable', CANCEL_DELAY_MS);
      await waitStatus(runId, 'running');
      const scheduled = await waitFor(() => timerFields(runId, 'timer.scheduled'), {
        what: 'the timer to be recorded',
      });
      const cancel = await call(gw(), 'POST', `/v1/runs/${runId}/cancel`, { reason: 'test' });
      expect(cancel.status).toBeLessThan(300);
      await waitStatus(runId, 'cancelled', 5_000).catch(async (e: unknown) => {
        throw new Error(
          `${String(e)}; status ${await status(runId)}; events ${JSON.stringify(await counts(runId))}`,
        );
      });
      expect(await armedTimers(runId)).toBe(0);
      // The behaviour under test is about time: let the due instant pass (plus several polls), then look.
      const quietUntil = Date.parse(scheduled.dueAt!) + 1_500;
      await waitFor(() => Date.now() > quietUntil, {
        timeoutMs: CANCEL_DELAY_MS + 5_000,
        what: 'the cancelled delay to fall due',
      });
      const c = await counts(runId);
      expect(c).toMatchObject({ 'node.cancelled@wait': 1, 'run.cancelled': 1 });
      expect(c['node.started@done']).toBeUndefined();
      expect(c['run.completed']).toBeUndefined();
      expect(await status(runId)).toBe('cancelled');
    });

    it('pause (immediate) during a delay: the timer falls due but the run goes on only after resume, once', async () => {
      const runId = await start('conformance-cancellable');
      await waitFor(() => timerFields(runId, 'timer.scheduled'), { what: 'the timer to be recorded' });
      // `immediate` pauses between events; the default drain-current-node would let the delay node finish
      // first (apps/e2e/src/v1-last-gaps.e2e.spec.ts).
      const paused = await call(gw(), 'POST', `/v1/runs/${runId}:pause`, {
        reason: 'maintenance',
        drainPolicy: 'immediate',
      });
      expect(paused.status).toBe(202);
      expect(paused.json).toMatchObject({ runId, status: 'paused' });
      expect(Number.isNaN(Date.parse(String(paused.json.pausedAt)))).toBe(false);
      expect(await status(runId)).toBe('paused');
      // The timer fires while paused: recorded, and nothing else happens.
      await waitFor(() => timerFields(runId, 'timer.fired'), {
        timeoutMs: DELAY_MS + 10_000,
        what: 'the timer to fire',
      });
      expect(await status(runId)).toBe('paused');
      expect((await counts(runId))['node.completed@wait']).toBeUndefined();
      const resumed = await call(gw(), 'POST', `/v1/runs/${runId}:resume`, {});
      expect(resumed.status).toBe(202);
      expect(resumed.json).toMatchObject({ runId, status: 'running' });
      await waitStatus(runId, 'completed');
      expect(await counts(runId)).toMatchObject({
        'run.paused': 1,
        'run.resumed': 1,
        'node.completed@wait': 1,
        'node.completed@done': 1,
        'run.completed': 1,
      });
      const [pausedEvent] = await query<{ payload: Record<string, unknown> }>(
        hut.db.url,
        "SELECT doc->'payload' AS payload FROM run_events WHERE run_id = $1 AND type = 'run.paused'",
        [runId],
      );
      expect(pausedEvent!.payload).toMatchObject({ reason: 'maintenance', drainPolicy: 'immediate' });
    });

    it('pause and resume answer 409, 404, 403 and 400 as rest-endpoints.md says, and change nothing', async () => {
      const runId = await start('conformance-cancellable', 60_000);
      await waitStatus(runId, 'running');
      const notPaused = await call(gw(), 'POST', `/v1/runs/${runId}:resume`, {});
      expect(notPaused).toMatchObject({
        status: 409,
        json: { error: 'run_not_paused', details: { runStatus: 'running' } },
      });
      const first = await call(gw(), 'POST', `/v1/runs/${runId}:pause`, { drainPolicy: 'immediate' });
      expect(first.status).toBe(202);
      const again = await call(gw(), 'POST', `/v1/runs/${runId}:pause`, {});
      expect(again).toMatchObject({
        status: 409,
        json: {
          error: 'run_already_paused',
          details: { runStatus: 'paused', pausedAt: first.json.pausedAt },
        },
      });
      expect(await call(gw(), 'POST', `/v1/runs/${runId}:pause`, { drainPolicy: 'later' })).toMatchObject({
        status: 400,
        json: { error: 'validation_error' },
      });
      expect(await call(gw(), 'POST', `/v1/runs/${runId}:pause`, { extra: true })).toMatchObject({
        status: 400,
        json: { error: 'validation_error' },
      });
      expect((await call(gw(), 'POST', `/v1/runs/${runId}:resume`, {}, TEST_KEYS.t2)).status).toBe(404);
      expect((await call(gw(), 'POST', `/v1/runs/${runId}:pause`, {}, TEST_KEYS.t2)).status).toBe(404);
      expect((await call(gw(), 'POST', `/v1/runs/${runId}:resume`, {}, TEST_KEYS.readonly)).status).toBe(403);
      expect((await call(gw(), 'POST', '/v1/runs/no-such-run:pause', {})).status).toBe(404);
      expect(await counts(runId)).toMatchObject({ 'run.paused': 1 });
      expect((await counts(runId))['run.resumed']).toBeUndefined();
      // Cancel exits the paused state; a terminal run can be neither paused nor resumed.
      expect((await call(gw(), 'POST', `/v1/runs/${runId}/cancel`, {})).status).toBeLessThan(300);
      await waitStatus(runId, 'cancelled', 5_000);
      expect(await call(gw(), 'POST', `/v1/runs/${runId}:pause`, {})).toMatchObject({
        status: 409,
        json: { error: 'run_terminal', details: { runStatus: 'cancelled' } },
      });
      expect(await call(gw(), 'POST', `/v1/runs/${runId}:resume`, {})).toMatchObject({
        status: 409,
        json: { error: 'run_not_paused', details: { runStatus: 'cancelled' } },
      });
    });

    it('kill -9 of every process holding the delay: after a restart the run completes exactly once', async () => {
      const runId = await start('conformance-delay');
      await waitFor(() => timerFields(runId, 'timer.scheduled'), { what: 'the timer to be recorded' });
      const victims: AppProcess[] = hut.host.processes.filter(
        (p) => p.name === (mode === 'embedded' ? 'embedded' : 'engine'),
      );
      expect(victims.length).toBeGreaterThan(0);
      for (const v of victims) {
        await v.kill('SIGKILL');
        hut.host.processes.splice(hut.host.processes.indexOf(v), 1);
      }
      expect(await armedTimers(runId)).toBe(1);
      // Back after the due instant, so the timer is found in Postgres by a process that never saw it armed.
      const dueAt = Date.parse((await timerFields(runId, 'timer.scheduled'))!.dueAt!);
      await waitFor(() => Date.now() > dueAt, {
        timeoutMs: DELAY_MS + 5_000,
        what: 'the delay to fall due while nobody runs',
      });
      for (const v of victims) await hut.host.restart(v.name);
      await waitStatus(runId, 'completed', 30_000);
      expect(await counts(runId)).toMatchObject({
        'log.appended@wait': 2,
        'node.completed@wait': 1,
        'run.completed': 1,
      });
      expect(await armedTimers(runId)).toBe(0);
    });
  },
);
