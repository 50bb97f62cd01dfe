import { InProcessBus } from '../in-process.bus';
import { waitFor } from '../testing/wait-for.util';

describe('in-process retention', () => {
  it('drops records once every group committed past them, and keeps what a slower group still needs', async () => {
    const bus = new InProcessBus({ partitions: 1 });
    await bus.start();
    let fast = 0;
    let slow = 0;
    let releaseSlow: () => void = () => undefined;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    await bus.subscribe({ group: 'fast', topics: ['t'], handler: async () => void fast++ });
    await bus.subscribe({
      group: 'slow',
      topics: ['t'],
      handler: async () => {
        await slowGate;
        slow++;
      },
    });
    const n = 2_000;
    await bus.publish(
      't',
      Array.from({ length: n }, (_, i) => ({ key: 'k', value: i })),
    );
    await waitFor(() => fast === n, { timeoutMs: 10_000 });
    const log = bus.broker.topic('t').partition(0);
    expect(log.start).toBe(0);
    releaseSlow();
    await waitFor(() => slow === n, { timeoutMs: 10_000 });
    expect(log.end).toBe(n);
    expect(log.start).toBeGreaterThanOrEqual(n - 256);
    await bus.stop();
  });
});
