import type { IncomingMessage } from '../bus.port';
import { deliverWithRetries, TRANSIENT_BUDGET_MS } from './bounded-retry.policy';

const message = (attempt: number): IncomingMessage => ({
  topic: 't',
  partition: 0,
  offset: '0',
  key: 'k',
  value: {},
  headers: {},
  attempt,
});

class Outage extends Error {}

describe('deliverWithRetries', () => {
  it('gives up after maxAttempts failures of the message itself', async () => {
    const seen: number[] = [];
    const outcome = await deliverWithRetries({
      handler: async (m) => {
        seen.push(m.attempt);
        throw new Error('poison');
      },
      message,
      maxAttempts: 3,
      backoffMs: () => 0,
      isTransient: (e) => e instanceof Outage,
    });
    expect(outcome).toMatchObject({ kind: 'exhausted', attempts: 3 });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('waits out transient failures (an outage) without using up attempts, then handles the message', async () => {
    let calls = 0;
    const outcome = await deliverWithRetries({
      handler: async () => {
        calls += 1;
        if (calls <= 6) throw new Outage('database restarting');
      },
      message,
      maxAttempts: 2,
      isTransient: (e) => e instanceof Outage,
    });
    expect(outcome).toEqual({ kind: 'handled', attempts: 7 });
  });

  it('without a classifier every failure counts (the transient budget is a bound, not forever)', async () => {
    expect(TRANSIENT_BUDGET_MS).toBe(60_000);
    let calls = 0;
    const outcome = await deliverWithRetries({
      handler: async () => {
        calls += 1;
        throw new Outage('still down');
      },
      message,
      maxAttempts: 1,
    });
    expect(outcome).toMatchObject({ kind: 'exhausted', attempts: 1 });
    expect(calls).toBe(1);
  });

  it('stops retrying a transient failure when the consumer is no longer alive', async () => {
    let alive = true;
    const outcome = await deliverWithRetries({
      handler: async () => {
        alive = false;
        throw new Outage('down');
      },
      message,
      maxAttempts: 5,
      alive: () => alive,
      isTransient: (e) => e instanceof Outage,
    });
    expect(outcome).toEqual({ kind: 'abandoned', attempts: 1 });
  });
});

describe('deliverWithRetries with a transient budget of its own', () => {
  afterEach(() => jest.useRealTimers());

  /** Runs the delivery of a message whose handler fails transiently `outageCalls` times, on fake time. */
  async function throughOutage(outageCalls: number, transientBudgetMs?: number) {
    jest.useFakeTimers();
    let calls = 0;
    const delivery = deliverWithRetries({
      handler: async () => {
        calls += 1;
        if (calls <= outageCalls) throw new Outage('too many clients');
      },
      message,
      maxAttempts: 1,
      isTransient: (e) => e instanceof Outage,
      ...(transientBudgetMs === undefined ? {} : { transientBudgetMs }),
    });
    // 100 transient retries wait about 96 s in all (50 ms doubling, capped at 1 s): past the default budget.
    await jest.advanceTimersByTimeAsync(200_000);
    return delivery;
  }

  it('by default, transient failures count once the 60 s budget is spent', async () => {
    expect(await throughOutage(100)).toMatchObject({ kind: 'exhausted' });
  });

  it('Infinity waits out an outage of any length without using up attempts', async () => {
    expect(await throughOutage(100, Infinity)).toEqual({ kind: 'handled', attempts: 101 });
  });

  it('a small budget is kept: transient failures count once it is spent', async () => {
    expect(await throughOutage(100, 100)).toMatchObject({ kind: 'exhausted', attempts: 3 });
  });
});
