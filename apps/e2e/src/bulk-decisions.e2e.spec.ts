import { OpenWopClient } from '@openwop/sdk';
import { waitFor } from '@openwop/testing';
import { query } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// Bulk decisions (issue 21 item 5, ADR 0036), both modes: one bulk resolve of 500 interrupts —
// most of them the caller's, a few behind a gate whose enforced approver list leaves the caller out,
// a few of another tenant's runs — answers per item in order (`forbidden`, `not_found` named), and
// every allowed run completes exactly once (one `approval.received`, one `run.completed`). The same
// request again under the same Idempotency-Key replays the answer and resumes nothing; another bulk
// naming decided interrupts gets `interrupt_already_resolved` per item. A filter-selected bulk
// cancel cancels exactly the runs waiting on what it selected and lists them.

const ALL = [
  'manifest:read',
  'manifest:write',
  'runs:create',
  'runs:read',
  'runs:cancel',
  'approvals:respond',
];
const KEYS = { t1: 'bulk_t1_' + 'a'.repeat(24), t2: 'bulk_t2_' + 'b'.repeat(24) };
const API_KEYS = JSON.stringify([
  { key: KEYS.t1, scopes: ALL, tenant: 't1', id: 'key-t1', principal: 'alice' },
  { key: KEYS.t2, scopes: ALL, tenant: 't2', id: 'key-t2', principal: 'bob' },
]);

/** The bulk request: 500 items, of which {@link GUARDED} are forbidden and {@link FOREIGN} another tenant's. */
const TOTAL = 500;
const GUARDED = 3;
const FOREIGN = 2;
const ALLOWED = TOTAL - GUARDED - FOREIGN;
const STALE = 3;
/** Runs created at once. */
const CREATES_AT_ONCE = 16;

interface Result {
  runId: string;
  nodeId: string;
  ok: boolean;
  status?: string;
  error?: { code: string; message: string };
}
interface Answer {
  bulkId: string;
  selected?: { runId: string; nodeId: string }[];
  truncated?: boolean;
  results: Result[];
}

function workflow(id: string, gate: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    version: '1.0.0',
    nodes: [
      {
        id: 'gate',
        typeId: 'core.approvalGate',
        config: { title: 'ship it?', actions: ['accept', 'reject'], timeoutMs: 600_000, ...gate },
      },
      { id: 'after', typeId: 'core.noop', config: {} },
    ],
    edges: [{ id: 'e1', sourceNodeId: 'gate', targetNodeId: 'after' }],
    triggers: [],
    variables: [],
    metadata: {},
    settings: {},
  };
}

async function pool<T>(count: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      out[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CREATES_AT_ONCE, count) }, worker));
  return out;
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('bulk decisions end to end, %s mode', (mode) => {
  let hut: HostUnderTest;
  let base: string;
  let t1: OpenWopClient;
  let t2: OpenWopClient;
  const wf = { gate: `bulk-${mode}-gate`, guarded: `bulk-${mode}-guarded`, stale: `bulk-${mode}-stale` };

  beforeAll(async () => {
    hut = await MODES[mode]({ WOP_API_KEYS: API_KEYS });
    base = hut.host.gateways[0]!;
    t1 = new OpenWopClient({ baseUrl: base, apiKey: KEYS.t1 });
    t2 = new OpenWopClient({ baseUrl: base, apiKey: KEYS.t2 });
    await t1.call('POST', '/v1/workflows', workflow(wf.gate));
    await t1.call(
      'POST',
      '/v1/workflows',
      workflow(wf.guarded, { approversList: ['carol'], approverPolicy: 'enforced' }),
    );
    await t1.call('POST', '/v1/workflows', workflow(wf.stale));
    await t2.call('POST', '/v1/workflows', workflow(wf.gate));
  });
  afterAll(async () => {
    await hut?.stop();
  });

  async function post(path: string, body: unknown, key: string, idempotencyKey?: string) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      replay: res.headers.get('openwop-idempotent-replay'),
      body: (await res.json()) as Answer & { error?: string; details?: Record<string, unknown> },
    };
  }

  async function createWaiting(
    client: OpenWopClient,
    tenant: string,
    workflowId: string,
    count: number,
  ): Promise<string[]> {
    const runIds = await pool(count, async () => (await client.createRun({ workflowId })).runId);
    await waitFor(
      async () => {
        const [row] = await query<{ n: string }>(
          hut.db.url,
          'SELECT count(*) AS n FROM pending_interrupts WHERE tenant = $1 AND run_id = ANY($2)',
          [tenant, runIds],
        );
        return Number(row!.n) === count;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: `${count} ${workflowId} runs waiting` },
    );
    return runIds;
  }

  /** Per run, how many events of each type it has. */
  async function typeCounts(runIds: readonly string[]): Promise<Map<string, Record<string, number>>> {
    const rows = await query<{ run_id: string; type: string; n: string }>(
      hut.db.url,
      'SELECT run_id, type, count(*) AS n FROM run_events WHERE run_id = ANY($1) GROUP BY 1, 2',
      [runIds],
    );
    const out = new Map<string, Record<string, number>>();
    for (const r of rows) out.set(r.run_id, { ...out.get(r.run_id), [r.type]: Number(r.n) });
    return out;
  }

  async function statuses(runIds: readonly string[]): Promise<Record<string, number>> {
    const rows = await query<{ status: string; n: string }>(
      hut.db.url,
      'SELECT status, count(*) AS n FROM runs WHERE run_id = ANY($1) GROUP BY 1',
      [runIds],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  it(`resolves ${TOTAL} interrupts in one request: per-item results, forbidden and foreign ones named, the allowed ones complete once, a retry replays`, async () => {
    const started = Date.now();
    const allowed = await createWaiting(t1, 't1', wf.gate, ALLOWED);
    const guarded = await createWaiting(t1, 't1', wf.guarded, GUARDED);
    const foreign = await createWaiting(t2, 't2', wf.gate, FOREIGN);
    const created = Date.now();
    // The refused ones spread through the request: at 100, 200, 300 (guarded) and 400, 499 (foreign).
    const order = [...allowed];
    guarded.forEach((r, i) => order.splice((i + 1) * 100, 0, r));
    order.splice(400, 0, foreign[0]!);
    order.push(foreign[1]!);
    expect(order).toHaveLength(TOTAL);
    const items = order.map((runId) => ({ runId, nodeId: 'gate', resumeValue: { action: 'accept' } }));
    const key = `bulk-${mode}-${Date.now()}`;

    const first = await post('/v1/interrupts:bulk-resolve', { items }, KEYS.t1, key);
    const answered = Date.now();
    expect(first.status).toBe(200);
    expect(first.body.bulkId).toBe(key);
    expect(first.body.results.map((r) => [r.runId, r.nodeId])).toEqual(order.map((r) => [r, 'gate']));
    const outcome = (r: Result) => (r.ok ? `ok:${r.status}` : r.error!.code);
    const byRun = new Map(first.body.results.map((r) => [r.runId, outcome(r)]));
    expect(allowed.filter((r) => byRun.get(r) !== 'ok:resolved')).toEqual([]);
    expect(guarded.map((r) => byRun.get(r))).toEqual(guarded.map(() => 'forbidden'));
    expect(foreign.map((r) => byRun.get(r))).toEqual(foreign.map(() => 'not_found'));

    await waitFor(async () => (await statuses(allowed)).completed === ALLOWED, {
      timeoutMs: 120_000,
      intervalMs: 250,
      what: `${ALLOWED} bulk-resolved runs completed`,
    });
    const completed = Date.now();
    process.stdout.write(
      `bulk-decisions ${mode}: ${TOTAL} runs waiting in ${created - started} ms, bulk resolve answered in ${answered - created} ms, all completed ${completed - answered} ms later\n`,
    );

    // The same request under the same key: the stored answer, nothing decided again.
    const again = await post('/v1/interrupts:bulk-resolve', { items }, KEYS.t1, key);
    expect(again.status).toBe(200);
    expect(again.replay).toBe('true');
    expect(again.body).toEqual(first.body);
    // Another bulk naming decided interrupts: first resolve won, each is refused on its own.
    const other = await post(
      '/v1/interrupts:bulk-resolve',
      { items: items.slice(0, 5) },
      KEYS.t1,
      `${key}-other`,
    );
    expect(other.body.results.map(outcome)).toEqual(
      items.slice(0, 5).map(() => 'interrupt_already_resolved'),
    );

    const counts = await typeCounts(allowed);
    const once = ['approval.received', 'interrupt.resolved', 'run.completed'];
    const wrong = allowed.filter((r) => once.some((t) => counts.get(r)?.[t] !== 1));
    expect(wrong.map((r) => ({ runId: r, counts: counts.get(r) }))).toEqual([]);
    // The refused ones are still waiting, untouched.
    expect(await statuses([...guarded, ...foreign])).toEqual({ 'waiting-approval': GUARDED + FOREIGN });
    // The audit log records each decision with the bulk route.
    const [audit] = await query<{ n: string }>(
      hut.db.url,
      "SELECT count(*) AS n FROM audit_records WHERE tenant = 't1' AND record->>'route' = 'bulk' AND record->>'runId' = ANY($1)",
      [allowed],
    );
    expect(Number(audit!.n)).toBe(ALLOWED);
  }, 300_000);

  it('cancels the runs waiting on what a filter selects, lists the selection, and leaves the rest', async () => {
    const stale = await createWaiting(t1, 't1', wf.stale, STALE);
    const res = await post(
      '/v1/interrupts:bulk-cancel',
      { filter: { workflowId: wf.stale, kind: 'approval', olderThanMs: 0 }, reason: 'stale' },
      KEYS.t1,
    );
    expect(res.status).toBe(200);
    expect([...res.body.selected!.map((s) => s.runId)].sort()).toEqual([...stale].sort());
    expect(res.body.truncated).toBe(false);
    expect(res.body.results.map((r) => r.ok && ['cancelled', 'cancelling'].includes(r.status!))).toEqual(
      stale.map(() => true),
    );
    await waitFor(async () => (await statuses(stale)).cancelled === STALE, {
      timeoutMs: 30_000,
      what: 'the stale runs cancelled',
    });
    // Another tenant's filter selects none of them; the guarded runs (another workflow) still wait.
    const foreign = await post('/v1/interrupts:bulk-cancel', { filter: { workflowId: wf.stale } }, KEYS.t2);
    expect(foreign.body.results).toEqual([]);
    const [waiting] = await query<{ n: string }>(
      hut.db.url,
      "SELECT count(*) AS n FROM pending_interrupts WHERE tenant = 't1' AND workflow_id = $1",
      [wf.guarded],
    );
    expect(Number(waiting!.n)).toBe(GUARDED);
  }, 120_000);

  it('refuses a selection over the cap, or with both items and a filter, as 400 and decides nothing', async () => {
    const over = await post(
      '/v1/interrupts:bulk-resolve',
      { filter: {}, resumeValue: { action: 'accept' }, limit: TOTAL + 1 },
      KEYS.t1,
    );
    expect(over.status).toBe(400);
    expect(over.body.details).toMatchObject({ maxItems: TOTAL });
    const both = await post(
      '/v1/interrupts:bulk-cancel',
      { filter: {}, items: [{ runId: 'r', nodeId: 'gate' }] },
      KEYS.t1,
    );
    expect(both.status).toBe(400);
    expect(
      await statuses(
        await query<{ run_id: string }>(
          hut.db.url,
          "SELECT run_id FROM pending_interrupts WHERE tenant = 't1'",
        ).then((rows) => rows.map((r) => r.run_id)),
      ),
    ).toEqual({
      'waiting-approval': GUARDED,
    });
  });
});
