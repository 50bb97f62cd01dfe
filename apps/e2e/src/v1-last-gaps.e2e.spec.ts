import { TEST_KEYS, waitFor } from '@openwop/testing';
import { callGateway as call, query } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

/** The delay the drained node waits: long enough to pause during it, short enough to keep the suite quick. */
const DELAY_MS = 2_000;

/**
 * v1's last gaps of issue 30, both modes, real Kafka and Postgres: `:pause` with
 * `drain-current-node` lets the executing node finish before `run.paused`; `GET
 * /v1/runs/{runId}/artifacts/{artifactId}`; `eventLogSchemaVersion` on the run document; discovery's
 * `approvalActions` names `edit-accept` while a gate configured with the legacy `edit` still works.
 */
describe.each(Object.keys(MODES) as (keyof typeof MODES)[])("v1's last gaps (issue 30), %s mode", (mode) => {
  let hut: HostUnderTest;
  const gw = () => hut.host.gateways[0]!;
  const status = async (runId: string): Promise<string> =>
    (await call(gw(), 'GET', `/v1/runs/${runId}`)).json.status as string;
  const waitStatus = (runId: string, wanted: string, timeoutMs = 20_000) =>
    waitFor(async () => ((await status(runId).catch(() => undefined)) === wanted ? wanted : undefined), {
      timeoutMs,
      intervalMs: 100,
      what: `run ${runId} ${wanted}`,
    });
  const start = async (workflowId: string, inputs: Record<string, unknown> = {}): Promise<string> => {
    const created = await call(gw(), 'POST', '/v1/runs', { workflowId, inputs });
    expect(created.status).toBe(201);
    return created.json.runId as string;
  };
  /** The run's log as `type@node` in sequence order. */
  const log = async (runId: string): Promise<string[]> =>
    (
      await query<{ k: string }>(
        hut.db.url,
        `SELECT type || coalesce('@' || node_id, '') AS k FROM run_events WHERE run_id = $1 ORDER BY sequence`,
        [runId],
      )
    ).map((r) => r.k);
  const timerScheduled = async (runId: string) =>
    (
      await query<{ n: string }>(
        hut.db.url,
        "SELECT count(*)::text AS n FROM run_events WHERE run_id = $1 AND doc->'payload'->'fields'->>'event' = 'timer.scheduled'",
        [runId],
      )
    )[0]!.n === '1';

  beforeAll(async () => {
    hut = await MODES[mode]({ ENGINE_TIMER_MS: '100' });
  });
  afterAll(async () => {
    await hut?.stop();
  });

  describe(':pause while a node executes', () => {
    it('drain-current-node: the delay node completes first, then run.paused; nothing runs until resume', async () => {
      const runId = await start('conformance-cancellable', { delayMs: DELAY_MS });
      await waitFor(() => timerScheduled(runId), {
        what: 'the delay node to be executing (its timer armed)',
      });
      const pause = await call(gw(), 'POST', `/v1/runs/${runId}:pause`, {
        reason: 'drain',
        drainPolicy: 'drain-current-node',
      });
      expect(pause.status).toBe(202);
      // Accepted, not yet paused: the 202 says `paused` (rest-endpoints.md) with no pausedAt, the run still runs its node.
      expect(pause.json).toEqual({ runId, status: 'paused' });
      expect(await status(runId)).toBe('running');
      expect(await log(runId)).not.toContain('run.paused');
      // A second drain while the first waits is 409, the run's status in details.
      expect(await call(gw(), 'POST', `/v1/runs/${runId}:pause`, {})).toMatchObject({
        status: 409,
        json: { error: 'run_already_paused', details: { runStatus: 'running' } },
      });
      await waitStatus(runId, 'paused', DELAY_MS + 15_000);
      const paused = await log(runId);
      const completed = paused.indexOf('node.completed@wait');
      expect(completed).toBeGreaterThanOrEqual(0);
      expect(paused.indexOf('run.paused')).toBe(completed + 1);
      expect(paused.at(-1)).toBe('run.paused');
      expect(paused).not.toContain('node.started@done');
      const [event] = await query<{ payload: Record<string, unknown> }>(
        hut.db.url,
        "SELECT doc->'payload' AS payload FROM run_events WHERE run_id = $1 AND type = 'run.paused'",
        [runId],
      );
      expect(event!.payload).toMatchObject({ reason: 'drain', drainPolicy: 'drain-current-node' });
      const resumed = await call(gw(), 'POST', `/v1/runs/${runId}:resume`, {});
      expect(resumed.status).toBe(202);
      await waitStatus(runId, 'completed');
      const done = await log(runId);
      expect(done.slice(done.indexOf('run.paused'))).toEqual([
        'run.paused',
        'run.resumed',
        'node.started@done',
        'node.completed@done',
        'run.completed',
      ]);
    });

    it('immediate: run.paused at once, before the executing node completes, which waits for resume', async () => {
      const runId = await start('conformance-cancellable', { delayMs: DELAY_MS });
      await waitFor(() => timerScheduled(runId), {
        what: 'the delay node to be executing (its timer armed)',
      });
      const pause = await call(gw(), 'POST', `/v1/runs/${runId}:pause`, { drainPolicy: 'immediate' });
      expect(pause).toMatchObject({ status: 202, json: { runId, status: 'paused' } });
      expect(Number.isNaN(Date.parse(String(pause.json.pausedAt)))).toBe(false);
      expect(await status(runId)).toBe('paused');
      const paused = await log(runId);
      expect(paused.at(-1)).toBe('run.paused');
      expect(paused).not.toContain('node.completed@wait');
      expect((await call(gw(), 'POST', `/v1/runs/${runId}:resume`, {})).status).toBe(202);
      await waitStatus(runId, 'completed', DELAY_MS + 15_000);
      const done = await log(runId);
      expect(done.indexOf('run.paused')).toBeLessThan(done.indexOf('node.completed@wait'));
    });
  });

  describe('GET /v1/runs/{runId}/artifacts/{artifactId}', () => {
    it('reads back the artifact a run produced (artifacts:read); an unknown artifact, run or tenant is 404; without the scope 403', async () => {
      const runId = await start('conformance-artifact-emit');
      await waitStatus(runId, 'completed');
      const events = await query<{ payload: { artifactId: string; artifactType: string } }>(
        hut.db.url,
        "SELECT doc->'payload' AS payload FROM run_events WHERE run_id = $1 AND type = 'artifact.created'",
        [runId],
      );
      expect(events).toHaveLength(1);
      const { artifactId } = events[0]!.payload;
      const read = await call(gw(), 'GET', `/v1/runs/${runId}/artifacts/${encodeURIComponent(artifactId)}`);
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({
        runId,
        artifactId,
        artifactType: 'conformance.note',
        nodeId: 'emit',
        data: { title: 'Conformance artifact', body: 'Read me back.' },
        sequence: expect.any(Number),
      });
      expect(Number.isNaN(Date.parse(String(read.json.createdAt)))).toBe(false);
      // Every gateway reads the same projection.
      const other = hut.host.gateways.at(-1)!;
      expect(
        (await call(other, 'GET', `/v1/runs/${runId}/artifacts/${encodeURIComponent(artifactId)}`)).json,
      ).toEqual(read.json);
      for (const [path, key] of [
        [`/v1/runs/${runId}/artifacts/no-such-artifact`, TEST_KEYS.t1],
        [`/v1/runs/no-such-run/artifacts/${encodeURIComponent(artifactId)}`, TEST_KEYS.t1],
        [`/v1/runs/${runId}/artifacts/${encodeURIComponent(artifactId)}`, TEST_KEYS.t2],
      ] as const) {
        expect(await call(gw(), 'GET', path, undefined, key)).toMatchObject({
          status: 404,
          json: { error: 'not_found' },
        });
      }
      expect(
        (
          await call(
            gw(),
            'GET',
            `/v1/runs/${runId}/artifacts/${encodeURIComponent(artifactId)}`,
            undefined,
            TEST_KEYS.readonly,
          )
        ).status,
      ).toBe(403);
      // artifact-auth.test.ts: no key is 401 unauthenticated, never the artifact nor a redirect.
      const anonymous = await fetch(`${gw()}/v1/runs/${runId}/artifacts/${encodeURIComponent(artifactId)}`, {
        redirect: 'manual',
      });
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error?: string }).error).toBe('unauthenticated');
      // Listed where a client looks for it, with its scope.
      const doc = (await call(gw(), 'GET', '/.well-known/openwop')).json as {
        endpoints: { method: string; path: string; scope?: string }[];
        fixtures: string[];
      };
      expect(doc.endpoints).toContainEqual({
        method: 'GET',
        path: '/v1/runs/{runId}/artifacts/{artifactId}',
        scope: 'artifacts:read',
      });
      expect(doc.fixtures).toContain('conformance-artifact-emit');
    });
  });

  it('the run document and the snapshot carry eventLogSchemaVersion 2 (v1 era)', async () => {
    const runId = await start('conformance-noop');
    await waitStatus(runId, 'completed');
    expect((await call(gw(), 'GET', `/v1/runs/${runId}`)).json).toMatchObject({
      runId,
      eventLogSchemaVersion: 2,
    });
    const [row] = await query<{ era: number }>(
      hut.db.url,
      "SELECT (snapshot->>'eventLogSchemaVersion')::int AS era FROM runs WHERE run_id = $1",
      [runId],
    );
    expect(row?.era).toBe(2);
  });

  it("discovery's approvalActions names edit-accept, not edit; a gate configured with the legacy edit still takes an edit-accept answer", async () => {
    const doc = (await call(gw(), 'GET', '/.well-known/openwop')).json as {
      extensions: { interrupts: { approvalActions: string[] } };
    };
    expect(doc.extensions.interrupts.approvalActions).toEqual([
      'accept',
      'reject',
      'refine',
      'edit-accept',
      'ask',
    ]);
    const workflowId = `legacy-edit-${mode}`;
    const registered = await call(gw(), 'POST', '/v1/workflows', {
      id: workflowId,
      name: workflowId,
      version: '1.0.0',
      nodes: [
        { id: 'gate', typeId: 'core.approvalGate', config: { title: 'ok?', actions: ['accept', 'edit'] } },
        { id: 'after', typeId: 'core.noop', config: {} },
      ],
      edges: [{ id: 'e1', sourceNodeId: 'gate', targetNodeId: 'after' }],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    });
    expect(registered.status).toBeLessThan(300);
    const runId = await start(workflowId);
    await waitStatus(runId, 'waiting-approval');
    const answered = await call(gw(), 'POST', `/v1/runs/${runId}/interrupts/gate`, {
      action: 'edit-accept',
      editedArtifactData: { v: 2 },
    });
    expect(answered.status).toBe(200);
    await waitStatus(runId, 'completed');
    const [resolved] = await query<{ payload: { resumeValue: Record<string, unknown> } }>(
      hut.db.url,
      "SELECT doc->'payload' AS payload FROM run_events WHERE run_id = $1 AND type = 'interrupt.resolved'",
      [runId],
    );
    expect(resolved!.payload.resumeValue).toMatchObject({
      action: 'edit-accept',
      editedArtifactData: { v: 2 },
    });
  });
});
