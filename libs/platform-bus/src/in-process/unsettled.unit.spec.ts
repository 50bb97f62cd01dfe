import type { IncomingMessage } from '../bus.port';
import { InProcessBus } from '../in-process.bus';
import { waitFor } from '../testing/wait-for.util';

describe('in-process broker: messages of a key not yet settled (ADR 0038)', () => {
  it("counts a key's messages queued or being handled by any group, leaving out one record on request", async () => {
    const bus = new InProcessBus({ partitions: 1 });
    await bus.start();
    expect(bus.broker.unsettled('t', 'k')).toBe(0); // no such topic
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    const handled: IncomingMessage[] = [];
    let inFlight: IncomingMessage | undefined;
    await bus.subscribe({
      group: 'g',
      topics: ['t'],
      handler: async (m) => {
        inFlight = m;
        await gate;
        handled.push(m);
      },
    });
    await bus.publish('t', [
      { key: 'k', value: 1 },
      { key: 'j', value: 2 },
      { key: 'k', value: 3 },
    ]);
    await waitFor(() => inFlight !== undefined, { timeoutMs: 5_000 });
    const first = inFlight!;
    expect(bus.broker.unsettled('t', 'k')).toBe(2);
    expect(bus.broker.unsettled('t', 'k', { partition: first.partition, offset: Number(first.offset) })).toBe(
      1,
    );
    expect(bus.broker.unsettled('t', 'j')).toBe(1);
    expect(bus.broker.unsettled('t', 'other')).toBe(0);
    open();
    await waitFor(() => handled.length === 3, { timeoutMs: 5_000 });
    await waitFor(() => bus.broker.unsettled('t', 'k') === 0 && bus.broker.unsettled('t', 'j') === 0, {
      timeoutMs: 5_000,
    });
    await bus.stop();
  });
});
