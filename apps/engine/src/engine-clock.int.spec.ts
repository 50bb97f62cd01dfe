import 'reflect-metadata';
import { Test, type TestingModule } from '@nestjs/testing';
import { Topics, type CommandReply, type RunEventDoc, type StartRunResult } from '@openwop/contracts';
import type { RunRecord } from '@openwop/engine-domain';
import { PlatformModule, readHostConfig, startPlatform, type Platform } from '@openwop/platform-nest';
import { createTestDatabase, waitFor, type TestDatabase } from '@openwop/testing';
import { CLOCK, type Clock } from './engine.di-tokens';
import { EngineModule } from './engine.module';

/**
 * The engine's only source of time is its injected clock (STYLE G2): with a clock held at a fixed
 * instant, a run's events, its durable timer's due time and the timer's firing carry that clock's
 * time, not the machine's.
 */
describe('engine clock (Postgres, in-process bus)', () => {
  const T0 = '2020-02-02T02:02:02.000Z';
  const T1 = '2020-02-02T02:02:07.000Z';
  let now = T0;
  const clock: Clock = { now: () => now };
  let db: TestDatabase;
  let platform: Platform;
  let moduleRef: TestingModule;

  beforeAll(async () => {
    db = await createTestDatabase('engine_clock');
    platform = await startPlatform(
      readHostConfig('embedded', { OPENWOP_DATA_DIR: 'memory', DATABASE_URL: db.url, KAFKA_PARTITIONS: '2' }),
    );
    moduleRef = await Test.createTestingModule({ imports: [PlatformModule.forRoot(platform), EngineModule] })
      .overrideProvider(CLOCK)
      .useValue(clock)
      .setLogger({
        log: () => undefined,
        warn: () => undefined,
        error: console.error,
        debug: () => undefined,
        verbose: () => undefined,
      })
      .compile();
    await moduleRef.init();
  }, 60_000);

  afterAll(async () => {
    await moduleRef?.close();
    await platform?.close();
    await db?.drop();
  }, 30_000);

  const events = async (runId: string) =>
    (
      await platform.dataSource.query<{ event: RunEventDoc }[]>(
        'SELECT event FROM engine_run_events WHERE run_id = $1 ORDER BY sequence',
        [runId],
      )
    ).map((r) => r.event);
  const runState = async (runId: string) =>
    (
      await platform.dataSource.query<{ state: RunRecord }[]>(
        'SELECT state FROM engine_runs WHERE run_id = $1',
        [runId],
      )
    )[0]?.state;

  it('stamps events, the timer due time and the timer firing with the injected clock', async () => {
    const runId = 'r-clock';
    const reply = await platform.bus.request<CommandReply<StartRunResult>>(
      Topics.engineCommands,
      {
        key: runId,
        value: {
          id: 'cmd-clock-start',
          type: 'run.start',
          occurredAt: new Date().toISOString(),
          correlationId: runId,
          actor: { tenant: 't1', principal: 'alice' },
          data: { runId, workflowId: 'conformance-delay', inputs: { delayMs: 5000 } },
        },
      },
      { timeoutMs: 10_000 },
    );
    expect(reply).toMatchObject({ ok: true, data: { status: 'running' } });
    const started = await events(runId);
    expect(new Set(started.map((e) => e.timestamp))).toEqual(new Set([T0]));
    const armed = await platform.dataSource.query<{ due_at: Date }[]>(
      'SELECT due_at FROM run_timers WHERE run_id = $1',
      [runId],
    );
    expect(armed.map((r) => r.due_at.toISOString())).toEqual([T1]);

    // The timer poller reads the same clock: at T0 nothing is due, at T1 the timer fires.
    now = T1;
    await waitFor(async () => (await runState(runId))?.status === 'completed' || undefined, {
      timeoutMs: 15_000,
      what: `${runId} completed`,
    });
    const after = (await events(runId)).slice(started.length);
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(after.map((e) => e.timestamp))).toEqual(new Set([T1]));
    expect(after.map((e) => e.type)).toContain('run.completed');
  }, 60_000);
});
