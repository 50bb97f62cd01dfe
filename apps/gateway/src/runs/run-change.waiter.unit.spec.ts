import { InProcessRunEventFeed } from '@openwop/platform-db';
import { projectedStatus, RunNotices, waitForProjectedRun, waitForRun } from './run-change.waiter';

const tick = () => new Promise((r) => setImmediate(r));

describe('waitForRun with notices watched before the caller read', () => {
  it('does not repeat the read at once: it probes after the first notice', async () => {
    const feed = new InProcessRunEventFeed();
    const notices = new RunNotices(feed, 'r1');
    let probes = 0;
    let value: string | undefined = undefined;
    const waiting = waitForRun(
      { feed, runId: 'r1', timeoutMs: 5_000, fallbackMs: 5_000, notices },
      async () => {
        probes += 1;
        return value;
      },
    );
    await tick();
    expect(probes).toBe(0);
    value = 'moved';
    await feed.publishedAll([{ runId: 'r1', sequence: 3 }]);
    await expect(waiting).resolves.toBe('moved');
    expect(probes).toBe(1);
    notices.close();
  });

  it('probes at once when the notice came between the watch and the wait', async () => {
    const feed = new InProcessRunEventFeed();
    const notices = new RunNotices(feed, 'r2');
    await feed.publishedAll([{ runId: 'r2', sequence: 1 }]);
    let probes = 0;
    // A fallback far beyond the test's own timeout: only the early notice can make it settle now.
    const waiting = waitForRun(
      { feed, runId: 'r2', timeoutMs: 60_000, fallbackMs: 60_000, notices },
      async () => {
        probes += 1;
        return 'here';
      },
    );
    expect(await settlesWithin(waiting)).toBe(true);
    await expect(waiting).resolves.toBe('here');
    expect(probes).toBe(1);
    notices.close();
  });

  it('counts, after atLeast, only notices of that sequence or later, including one seen before', async () => {
    const feed = new InProcessRunEventFeed();
    const early = new RunNotices(feed, 'r3');
    await feed.publishedAll([{ runId: 'r3', sequence: 4 }]);
    expect(await settlesWithin(early.atLeast(7).wait(5_000))).toBe(false);
    await feed.publishedAll([{ runId: 'r3', sequence: 6 }]);
    expect(await settlesWithin(early.wait(5_000))).toBe(false);
    await feed.publishedAll([{ runId: 'r3', sequence: 7 }]);
    expect(await settlesWithin(early.wait(5_000))).toBe(true);
    early.close();

    const late = new RunNotices(feed, 'r4');
    await feed.publishedAll([{ runId: 'r4', sequence: 9 }]);
    expect(await settlesWithin(late.atLeast(7).wait(5_000))).toBe(true);
    late.close();
  });
});

describe('waiting for a run whose projection is held (ADR 0019)', () => {
  const held = {
    status: 'running',
    lastSequence: 3,
    snapshot: { projectionError: { sequence: 4, reason: 'x' } },
  };
  const whole = { status: 'running', lastSequence: 3, snapshot: {} };

  it('stops at once instead of waiting out the deadline for a row that cannot move', async () => {
    const feed = new InProcessRunEventFeed();
    const waiting = waitForProjectedRun(
      { feed, runId: 'h1', timeoutMs: 60_000, fallbackMs: 60_000 },
      async () => held,
      (row) => row.lastSequence >= 9,
    );
    expect(await settlesWithin(waiting)).toBe(true);
    await expect(waiting).resolves.toEqual({ row: held, ready: false });
  });

  it('keeps waiting for a row that is merely behind', async () => {
    const feed = new InProcessRunEventFeed();
    let row = whole;
    const waiting = waitForProjectedRun(
      { feed, runId: 'h2', timeoutMs: 60_000, fallbackMs: 60_000 },
      async () => row,
      (r) => r.lastSequence >= 9,
    );
    expect(await settlesWithin(waiting)).toBe(false);
    row = { ...whole, lastSequence: 9 };
    await feed.publishedAll([{ runId: 'h2', sequence: 9 }]);
    await expect(waiting).resolves.toEqual({ row, ready: true });
  });

  it("answers a command with the command's own status, without the timeout's warning", async () => {
    const feed = new InProcessRunEventFeed();
    const warnings: string[] = [];
    const status = projectedStatus(
      { feed, runs: { findVisible: async () => held }, warn: (l) => warnings.push(l) },
      'h3',
      'default',
      { lastSequence: 9, status: 'waiting-approval' },
    );
    expect(await settlesWithin(status)).toBe(true);
    await expect(status).resolves.toBe('waiting-approval');
    expect(warnings).toEqual([]);
  });
});

describe('a command answered from the feed’s notice (ADR 0039: no read of what was just written)', () => {
  it('answers the command’s status without reading the run once a notice reaches its last sequence', async () => {
    const feed = new InProcessRunEventFeed();
    const notices = new RunNotices(feed, 'n1');
    let reads = 0;
    await feed.publishedAll([{ runId: 'n1', sequence: 4 }]);
    const status = await projectedStatus(
      {
        feed,
        runs: {
          findVisible: async () => {
            reads += 1;
            return undefined;
          },
        },
        warn: () => undefined,
      },
      'n1',
      'default',
      { lastSequence: 4, status: 'waiting-approval' },
      notices,
    );
    expect(status).toBe('waiting-approval');
    expect(reads).toBe(0);
    notices.close();
  });

  it('reads the run when the notices stop short of the command’s last sequence', async () => {
    const feed = new InProcessRunEventFeed();
    const notices = new RunNotices(feed, 'n2');
    let reads = 0;
    const row = { status: 'completed', lastSequence: 6, snapshot: {} };
    await feed.publishedAll([{ runId: 'n2', sequence: 5 }]);
    const status = await projectedStatus(
      {
        feed,
        runs: {
          findVisible: async () => {
            reads += 1;
            return row;
          },
        },
        warn: () => undefined,
      },
      'n2',
      'default',
      { lastSequence: 6, status: 'waiting-approval' },
      notices,
    );
    expect(status).toBe('completed');
    expect(reads).toBe(1);
    notices.close();
  });
});

/** True when `p` settles within a few event-loop turns (a wait that is not due stays pending). */
async function settlesWithin(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  for (let i = 0; i < 5; i++) await tick();
  return settled;
}
