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

afterAll(async () => {
  await startTelemetry('openwop-gateway').shutdown();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const maxDelay = (text: string) =>
  Number(/^nodejs_eventloop_delay_max_seconds(?:\{[^}]*\})? ([\d.e+-]+)$/m.exec(text)?.[1]);

describe('event loop delay metrics', () => {
  it('report how late the loop ran since the previous scrape, in seconds', async () => {
    const t = startTelemetry('openwop-gateway', { env: {} });
    await sleep(30); // let the histogram sample an idle loop
    const blockedUntil = Date.now() + 300;
    while (Date.now() < blockedUntil); // hold the loop, as a synchronous burst of work would
    await sleep(30); // the sampler's late tick records the block
    const first = await scrape(t);
    expect(first).toMatch(/^nodejs_eventloop_delay_p50_seconds /m);
    expect(first).toMatch(/^nodejs_eventloop_delay_p99_seconds /m);
    expect(maxDelay(first)).toBeGreaterThan(0.1);
    // The window restarts at each scrape: the block is not reported twice.
    await sleep(30);
    expect(maxDelay(await scrape(t))).toBeLessThan(0.1);
  });
});

describe('process metrics', () => {
  it('report CPU time, resident memory, heap in use and uptime with their units', async () => {
    const t = startTelemetry('openwop-gateway', { env: {} });
    const text = await scrape(t);
    expect(text).toMatch(/^# TYPE process_cpu_time_seconds_total counter$/m);
    expect(text).toMatch(/^process_cpu_time_seconds_total\{cpu_mode="user"\} [\d.e+-]+$/m);
    expect(text).toMatch(/^process_cpu_time_seconds_total\{cpu_mode="system"\} [\d.e+-]+$/m);
    expect(Number(/^process_memory_usage_bytes ([\d.e+]+)$/m.exec(text)?.[1])).toBeGreaterThan(1e6);
    expect(text).toMatch(/^v8js_memory_heap_used_bytes\{v8js_heap_space_name="old_space"\} [\d.e+]+$/m);
    expect(text).toMatch(/^# UNIT process_uptime_seconds seconds$/m);
    expect(Number(/^process_uptime_seconds ([\d.e+]+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
  });
});
