import type { RunEventDoc } from '@openwop/contracts';
import { OpenWopClient } from '@openwop/sdk';
import { TEST_KEYS, waitFor } from '@openwop/testing';
import { waitStatus } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// One tenant starts the widest parallel run the host accepts (4,000 nodes, or the host's
// `limits.maxWorkflowNodes` / `maxNodeExecutions` / `maxWorkflowEdges` if lower) while the same
// process keeps answering `GET /readyz`. The engine decides such a run in slices (a decision
// checkpoint yields the event loop between node visits), so probes are answered while the run is
// still being decided; the run's events are exactly those of one uninterrupted decision. Probe
// latencies are printed, not asserted (no timed assertions in tests).

interface Limits {
  maxWorkflowNodes?: number;
  maxWorkflowEdges?: number;
  maxNodeExecutions?: number;
}

function parallelWorkflow(id: string, total: number): Record<string, unknown> {
  const mids = Array.from({ length: total - 2 }, (_, i) => `n${i}`);
  return {
    id,
    name: 'wide parallel run',
    version: '1',
    nodes: ['start', ...mids, 'end'].map((n) => ({ id: n, typeId: 'core.noop' })),
    edges: mids.flatMap((n) => [
      { id: `s-${n}`, sourceNodeId: 'start', targetNodeId: n },
      { id: `${n}-e`, sourceNodeId: n, targetNodeId: 'end' },
    ]),
  };
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('a wide parallel run, %s mode', (mode) => {
  let hut: HostUnderTest;
  beforeAll(async () => {
    hut = await MODES[mode]();
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('does not keep the host from answering /readyz while it is decided, and runs every node once', async () => {
    const gateway = hut.host.gateways[0]!;
    const client = new OpenWopClient({ baseUrl: gateway, apiKey: TEST_KEYS.t1 });
    const doc = (await client.discovery()) as { limits?: Limits; extensions?: { limits?: Limits } };
    const limits = { ...doc.limits, ...doc.extensions?.limits };
    const total = Math.min(
      4000,
      limits.maxWorkflowNodes || Infinity,
      limits.maxNodeExecutions || Infinity,
      Math.floor((limits.maxWorkflowEdges || Infinity) / 2) + 2,
    );
    const { workflowId } = await client.registerWorkflow(parallelWorkflow('wide-parallel', total));

    let settled = false;
    const started = client
      .createRun({ workflowId, configurable: { recursionLimit: total } })
      .finally(() => (settled = true));
    const answeredMeanwhile: number[] = [];
    // Probes one after another for as long as the run is being started; each has a deadline.
    const deadline = Date.now() + 120_000;
    while (!settled && Date.now() < deadline) {
      const t0 = performance.now();
      const res = await fetch(`${gateway}/readyz`, { signal: AbortSignal.timeout(60_000) });
      expect(res.status).toBe(200);
      if (!settled) answeredMeanwhile.push(performance.now() - t0);
    }
    const { runId } = await started;
    expect(answeredMeanwhile.length).toBeGreaterThan(0);

    await waitStatus(client, runId, 'completed', 120_000);
    const events: RunEventDoc[] = [];
    await waitFor(
      async () => {
        const last = events.at(-1);
        const page = await client.pollEvents(runId, last ? { after: last.sequence } : {});
        events.push(...page.events);
        return events.at(-1)?.type === 'run.completed' ? true : undefined;
      },
      { timeoutMs: 60_000, what: 'every event of the wide run' },
    );
    expect(events).toHaveLength(2 + 2 * total);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
    const startedNodes = events.filter((e) => e.type === 'node.started').map((e) => e.nodeId);
    expect(new Set(startedNodes).size).toBe(total);
    expect(startedNodes.at(-1)).toBe('end');
    expect(events.at(-1)?.type).toBe('run.completed');

    const sorted = [...answeredMeanwhile].sort((a, b) => a - b);
    console.log(
      `${mode}: ${total}-node parallel run; ${sorted.length} /readyz answered while it was started, ` +
        `latency p50 ${sorted[sorted.length >> 1]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
    );
  });
});
