import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTelemetry, type Telemetry } from './telemetry';

function scrape(telemetry: Telemetry): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    const res = {
      statusCode: 0,
      setHeader: () => undefined,
      end: (chunk?: string) => resolve(body + (chunk ?? '')),
      write: (chunk: string) => ((body += chunk), true),
    } as unknown as ServerResponse;
    telemetry.metricsHandler({} as IncomingMessage, res);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const maxDelay = (text: string) => Number(/^nodejs_eventloop_delay_max(?:_seconds)?(?:\{[^}]*\})? ([\d.e+-]+)$/m.exec(text)?.[1]);

describe('event loop delay metrics', () => {
  it('report how late the loop ran since the previous scrape, in seconds', async () => {
    const t = startTelemetry('openwop-gateway', { env: {} });
    await sleep(30); // let the histogram sample an idle loop
    const blockedUntil = Date.now() + 300;
    while (Date.now() < blockedUntil); // hold the loop, as a synchronous burst of work would
    await sleep(30); // the sampler's late tick records the block
    const first = await scrape(t);
    expect(first).toMatch(/^nodejs_eventloop_delay_p50(_seconds)? /m);
    expect(first).toMatch(/^nodejs_eventloop_delay_p99(_seconds)? /m);
    expect(maxDelay(first)).toBeGreaterThan(0.1);
    // The window restarts at each scrape: the block is not reported twice.
    await sleep(30);
    expect(maxDelay(await scrape(t))).toBeLessThan(0.1);
    await t.shutdown();
  });
});
