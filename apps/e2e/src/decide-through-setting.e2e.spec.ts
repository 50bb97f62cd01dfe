import { OpenWopClient } from '@openwop/sdk';
import { startEmbeddedHost, TEST_KEYS, type RunningHost } from '@openwop/testing';
import { waitStatus } from './e2e-kit';

/**
 * `DECIDE_THROUGH` is a supported setting of the embedded host (README, ADR 0038, ADR 0039): on (the
 * default) a decision decides the commands it sends the other modules, its projection and its audit
 * facts in its own transaction; off, they go through the outbox and the in-process bus. A HITL cycle
 * is the same to a client either way.
 */
describe.each(['on', 'off'])('the embedded host with DECIDE_THROUGH=%s', (setting) => {
  let host: RunningHost;
  let client: OpenWopClient;
  beforeAll(async () => {
    host = await startEmbeddedHost({ env: { DECIDE_THROUGH: setting } });
    client = new OpenWopClient({ baseUrl: host.gateways[0]!, apiKey: TEST_KEYS.t1 });
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('runs an approval from start to completion with one gapless event log', async () => {
    const { runId } = await client.createRun({ workflowId: 'conformance-approval' });
    await waitStatus(client, runId, 'waiting-approval');
    const resolved = await client.resolveInterrupt(runId, 'gate', { action: 'accept' });
    expect(resolved).toMatchObject({ runId, status: 'resolved' });
    await waitStatus(client, runId, 'completed');
    const { events } = await client.pollEvents(runId);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'interrupt.resolved')).toHaveLength(1);
    expect(events[events.length - 1]?.type).toBe('run.completed');
  });
});
