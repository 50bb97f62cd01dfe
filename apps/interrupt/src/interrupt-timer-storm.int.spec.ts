import type { CommandEnvelope, ResumeRunData } from '@openwop/contracts';
import { waitFor } from '@openwop/testing';
import {
  approvalData,
  envelope,
  startInterruptHarness,
  type InterruptHarness,
} from './interrupt-harness.spec';
import { InterruptTimerService } from './interrupt-timer.service';

// A timeout storm (issue 19 item 5): 2,000 deadlines falling due at once, decided by two interrupt
// service instances over one Postgres database. Their timers claim batches with FOR UPDATE SKIP
// LOCKED; every interrupt must expire exactly once and the engine get exactly one run.resume each.

const STORM = 2_000;
let harness: InterruptHarness;
let platform: InterruptHarness['platform'];
let apps: InterruptHarness['apps'] = [];
let toEngine: CommandEnvelope[] = [];

// Far off: the storm is made by moving every deadline to now at once.
const openCommand = (runId: string) =>
  envelope('interrupt.open', approvalData(runId, { timeoutMs: 3_600_000 }));

beforeAll(async () => {
  harness = await startInterruptHarness({
    database: 'interrupt_storm',
    instances: 2,
    // The poll loops stay out of the way (first tick an hour away); the test ticks both timers itself.
    env: { INTERRUPT_TIMER_MS: '3600000', INTERRUPT_TIMER_BATCH: '200' },
  });
  ({ platform, apps, toEngine } = harness);
}, 60_000);

afterAll(async () => {
  await harness?.close();
}, 30_000);

it(`a storm of ${STORM} due deadlines on two timer instances: each interrupt expires once, each run gets one run.resume`, async () => {
  const runIds = Array.from({ length: STORM }, (_, i) => `storm-${i}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      for (let i = next++; i < STORM; i = next++) {
        const reply = await harness.send<{ status: string }>(openCommand(runIds[i]!), 30_000);
        expect(reply).toMatchObject({ ok: true, data: { status: 'pending' } });
      }
    }),
  );
  await platform.dataSource.query(
    `UPDATE interrupts SET deadline_at = now() - interval '1 second' WHERE status = 'pending'`,
  );

  const [a, b] = apps.map((app) => app.get(InterruptTimerService));
  const decided = await Promise.all([a!.tick(), b!.tick()]);
  // Both drained until nothing was left; neither decided a row the other did.
  expect(decided[0] + decided[1]).toBe(STORM);

  const rows: { status: string; n: string }[] = await platform.dataSource.query(
    `SELECT status, count(*)::text AS n FROM interrupts GROUP BY status`,
  );
  expect(rows).toEqual([{ status: 'expired', n: String(STORM) }]);
  const states: { n: string }[] = await platform.dataSource.query(
    `SELECT count(*)::text AS n FROM interrupts WHERE state->>'status' = 'expired' AND state ? 'expiredAt'`,
  );
  expect(states[0]!.n).toBe(String(STORM));

  const resumes = () => toEngine.filter((c) => c.type === 'run.resume');
  await waitFor(() => resumes().length >= STORM || undefined, {
    timeoutMs: 60_000,
    what: `${STORM} run.resume commands`,
  });
  // A second round finds nothing due.
  expect(await Promise.all([a!.tick(), b!.tick()])).toEqual([0, 0]);
  const perRun = new Map<string, number>();
  for (const c of resumes()) {
    const data = c.data as ResumeRunData;
    expect(data).toMatchObject({ outcome: 'timeout', interruptId: `${data.runId}:gate:0` });
    perRun.set(data.runId, (perRun.get(data.runId) ?? 0) + 1);
  }
  expect(perRun.size).toBe(STORM);
  expect([...perRun.values()].every((n) => n === 1)).toBe(true);
  expect(new Set(resumes().map((c) => c.id)).size).toBe(STORM);
}, 180_000);
