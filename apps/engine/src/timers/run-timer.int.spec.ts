import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import type { FireTimerCommand } from '@openwop/contracts';
import type { RunRecord, RunState } from '@openwop/engine-domain';
import { openDatabase, type OutboxRelay } from '@openwop/platform-db';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { claimDueTimers, syncRunTimer } from './run-timer.store';
import { RunTimerService } from './run-timer.service';

/** The durable timer store and poller against a real Postgres. */
describe('run timers (Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const relay = { kick: () => Promise.resolve() } as unknown as OutboxRelay;
  const poller = (batchSize = 50) => new RunTimerService(ds, relay, { intervalMs: 60_000, batchSize }, clock);

  const DUE = '2026-01-01T00:00:00.000Z';
  const AFTER = '2026-01-01T00:00:05.000Z';
  /** The poller's injected clock: a poll without an explicit time polls at its time. */
  const clock = { now: () => AFTER };
  /** A run record waiting (or not) on a timer: only the fields the store reads. */
  const run = (runId: string, timer?: { key: string; dueAt: string }): RunRecord =>
    ({
      status: 'running',
      runId,
      tenant: 't1',
      ...(timer ? { timer: { nodeId: 'wait', key: timer.key, delayMs: 1000, dueAt: timer.dueAt } } : {}),
    }) as unknown as RunRecord;
  const none: RunState = { status: 'none' };
  const arm = (runId: string, dueAt = DUE) =>
    ds.transaction((m) => syncRunTimer(m, none, run(runId, { key: `${runId}:wait:timer:0:0`, dueAt })));
  const timers = () => ds.query<{ run_id: string }[]>('SELECT run_id FROM run_timers ORDER BY run_id');
  const fired = async () =>
    (
      await ds.query<{ value: FireTimerCommand }[]>(
        "SELECT value FROM outbox WHERE value->>'type' = 'run.timer' ORDER BY id",
      )
    ).map((r) => r.value);

  beforeAll(async () => {
    db = await createTestDatabase('run_timers');
    ds = await openDatabase({ url: db.url, poolSize: 6, applicationName: 'run-timers-int' });
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  beforeEach(async () => {
    await ds.query('DELETE FROM run_timers');
    await ds.query('DELETE FROM outbox');
  });

  it('a decision arms the timer it started and removes the one it ended (fired or cancelled)', async () => {
    await arm('r-sync');
    expect(await timers()).toEqual([{ run_id: 'r-sync' }]);
    const waiting = run('r-sync', { key: 'r-sync:wait:timer:0:0', dueAt: DUE });
    // The same timer again (a decision that did not end the wait) arms nothing new.
    await ds.transaction((m) => syncRunTimer(m, waiting, waiting));
    expect(await timers()).toHaveLength(1);
    await ds.transaction((m) => syncRunTimer(m, waiting, run('r-sync')));
    expect(await timers()).toEqual([]);
  });

  it('two pollers at once claim every due timer exactly once, and leave timers not yet due', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `r-${String(i).padStart(2, '0')}`);
    for (const id of ids) await arm(id);
    await arm('r-later', '2026-01-01T01:00:00.000Z');
    const [a, b] = [poller(3), poller(3)];
    const [na, nb] = await Promise.all([a.tick(AFTER), b.tick(AFTER)]);
    expect(na + nb).toBe(40);
    const commands = await fired();
    expect(commands.map((c) => c.data.runId).sort()).toEqual(ids);
    expect(new Set(commands.map((c) => c.id)).size).toBe(40);
    expect(commands[0]).toMatchObject({
      type: 'run.timer',
      id: `timer:${commands[0]!.data.runId}:${commands[0]!.data.timerKey}`,
      actor: { tenant: 't1' },
    });
    expect(await timers()).toEqual([{ run_id: 'r-later' }]);
  });

  it('a claim that does not commit (the process died) leaves the timer due; the next poller, on any instance, fires it', async () => {
    await arm('r-crash');
    await expect(
      ds.transaction(async (m) => {
        expect(await claimDueTimers(m, AFTER, 10)).toHaveLength(1);
        throw new Error('killed before commit');
      }),
    ).rejects.toThrow('killed before commit');
    expect(await timers()).toEqual([{ run_id: 'r-crash' }]);
    // A fresh poller (a restarted instance holds nothing in memory) finds it in Postgres.
    expect(await poller().tick(AFTER)).toBe(1);
    expect((await fired()).map((c) => c.data.runId)).toEqual(['r-crash']);
    expect(await poller().tick(AFTER)).toBe(0);
  });

  it('a timer not yet due is not fired; it fires once its time has come', async () => {
    await arm('r-wait', AFTER);
    expect(await poller().tick(DUE)).toBe(0);
    expect(await fired()).toEqual([]);
    expect(await poller().tick(AFTER)).toBe(1);
  });
  it('a timer this process arms fires when due, long before the next poll (60 s here)', async () => {
    // A real clock: the poller's due-time wake-up is measured against it.
    const service = new RunTimerService(
      ds,
      relay,
      { intervalMs: 60_000, batchSize: 50 },
      {
        now: () => new Date().toISOString(),
      },
    );
    service.onApplicationBootstrap();
    try {
      await arm('r-told', new Date(Date.now() + 300).toISOString());
      await waitFor(async () => (await fired()).length === 1, {
        timeoutMs: 10_000,
        what: 'the told timer to fire',
      });
      expect((await fired()).map((c) => c.data.runId)).toEqual(['r-told']);
    } finally {
      await service.onApplicationShutdown();
    }
  });
});
