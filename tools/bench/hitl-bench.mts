/**
 * `npm run bench:cycle` — the full HITL cycle against a running host:
 * start (POST /v1/runs conformance-approval; answered once the run is projected waiting) →
 * resume (POST /v1/runs/{id}/interrupts/gate {action: accept}, then a long poll until the
 * completed run is visible). Env: WOP_URL (default http://127.0.0.1:8080), WOP_API_KEY, NAME,
 * and the harness's N, CONC, REPS, WARMUP, DEADLINE_MS. Prints per-rep lines and the medians.
 */
import { runBench, type CycleAdapter } from './harness.mts';

const url = process.env.WOP_URL ?? 'http://127.0.0.1:8080';
const key = process.env.WOP_API_KEY ?? '';
const headers = {
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json',
};
const runs = new Map<string, string>();

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

const adapter: CycleAdapter = {
  async start(id) {
    const created = await call<{ runId: string; status: string }>('POST', '/v1/runs', {
      workflowId: 'conformance-approval',
    });
    let status = created.status;
    let after = -1;
    while (status !== 'waiting-approval') {
      const page = await call<{ nextAfter: number; runStatus: string }>(
        'GET',
        `/v1/runs/${created.runId}/events/poll?after=${after}&timeoutMs=5000`,
      );
      after = page.nextAfter;
      status = page.runStatus;
    }
    runs.set(id, created.runId);
  },
  async resume(id) {
    const runId = runs.get(id)!;
    runs.delete(id);
    await call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'accept' });
    let after = -1;
    for (;;) {
      const page = await call<{ nextAfter: number; runStatus: string }>(
        'GET',
        `/v1/runs/${runId}/events/poll?after=${after}&timeoutMs=5000`,
      );
      if (page.runStatus === 'completed') return;
      if (page.runStatus === 'failed' || page.runStatus === 'cancelled')
        throw new Error(`run ${runId} ${page.runStatus}`);
      after = page.nextAfter;
    }
  },
};

await runBench(process.env.NAME ?? 'openwop', adapter);
