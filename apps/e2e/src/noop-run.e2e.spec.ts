import { OpenWopClient } from '@openwop/sdk';
import { startEmbeddedHost, TEST_KEYS, waitFor, type RunningHost } from '@openwop/testing';
import { MODES, type HostUnderTest } from './host-matrix';

async function expectNoopRunCompletes(baseUrl: string): Promise<void> {
  const client = new OpenWopClient({ baseUrl, apiKey: TEST_KEYS.t1 });
  const created = await client.createRun({ workflowId: 'conformance-noop' });
  expect(created.runId).toMatch(/[0-9a-f-]{36}/);
  expect(created.eventsUrl).toContain(`/v1/runs/${created.runId}/events`);
  const snapshot = await waitFor(
    async () => {
      const s = await client.getRun(created.runId);
      return s.status === 'completed' ? s : undefined;
    },
    { timeoutMs: 5_000, what: 'run completed' },
  );
  expect(snapshot).toMatchObject({
    runId: created.runId,
    workflowId: 'conformance-noop',
    status: 'completed',
  });
  const polled = await client.pollEvents(created.runId);
  const types = polled.events.map((e) => e.type);
  expect(types[0]).toBe('run.started');
  expect(types[types.length - 1]).toBe('run.completed');
  expect(types).toContain('node.completed');
  expect(polled.events.map((e) => e.sequence)).toEqual(polled.events.map((_, i) => i));
  expect(new Set(polled.events.map((e) => e.eventId)).size).toBe(polled.events.length);
  expect(polled.runStatus).toBe('completed');
}

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])('a no-op run, %s mode', (mode) => {
  let hut: HostUnderTest;
  beforeAll(async () => {
    hut = await MODES[mode]();
  });
  afterAll(async () => {
    await hut?.stop();
  });

  it('goes gateway → engine → events → projector and completes with gapless sequences', async () => {
    for (const gateway of hut.host.gateways) await expectNoopRunCompletes(gateway);
  });

  it('serves discovery with the seeded fixtures, unauthenticated', async () => {
    const doc = await new OpenWopClient({ baseUrl: hut.host.gateways[0]! }).discovery();
    expect(doc.fixtures).toContain('conformance-noop');
  });

  it('is ready: /healthz and /readyz answer 200 on every gateway', async () => {
    for (const g of hut.host.gateways) {
      expect((await fetch(`${g}/healthz`)).status).toBe(200);
      expect((await fetch(`${g}/readyz`)).status).toBe(200);
    }
  });
});

describe('the embedded default (PGlite, no servers)', () => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startEmbeddedHost();
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('completes a no-op run', async () => {
    await expectNoopRunCompletes(host.gateways[0]!);
  });
});
