import { InProcessRunEventFeed } from '@openwop/platform-db';
import { RunNotices, waitForRun } from './run-change.waiter';

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

/** True when `p` settles within a few event-loop turns (a wait that is not due stays pending). */
async function settlesWithin(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  for (let i = 0; i < 5; i++) await tick();
  return settled;
}
