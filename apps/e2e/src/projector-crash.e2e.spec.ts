import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { OpenWopClient } from '@openwop/sdk';
import {
  createTestDatabase,
  REPO_ROOT,
  startDistributedStack,
  TEST_KEYS,
  waitFor,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { query } from './e2e-kit';

const RUNS = Number(process.env.E2E_CRASH_RUNS ?? 1000);
const CONCURRENCY = 20;

describe('kill -9 of a projector in the middle of a stream of runs', () => {
  let db: TestDatabase;
  let rebuilt: TestDatabase;
  let stack: RunningHost;

  beforeAll(async () => {
    db = await createTestDatabase('e2e_projector_crash');
    rebuilt = await createTestDatabase('e2e_projector_rebuild');
    stack = await startDistributedStack({ databaseUrl: db.url, instances: 2 });
  });
  afterAll(async () => {
    await stack?.stop();
    await db?.drop();
    await rebuilt?.drop();
  });

  it(`stores every event of ${RUNS} runs exactly once, equal to a rebuild from the topic`, async () => {
    const clients = stack.gateways.map((g) => new OpenWopClient({ baseUrl: g, apiKey: TEST_KEYS.t1 }));
    const runIds: string[] = [];
    let next = 0;
    let killed = false;
    const worker = async (w: number) => {
      while (next < RUNS) {
        const i = next++;
        if (!killed && i >= RUNS / 4) {
          killed = true;
          const victim = stack.processes.find((p) => p.name === 'projector')!;
          await victim.kill('SIGKILL');
          stack.processes.splice(stack.processes.indexOf(victim), 1);
          setTimeout(() => void stack.restart('projector'), 1_500);
        }
        const created = await clients[w % clients.length]!.createRun({ workflowId: 'conformance-noop' });
        runIds.push(created.runId);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
    expect(killed).toBe(true);
    expect(runIds).toHaveLength(RUNS);

    await waitFor(
      async () => {
        const [row] = await query<{ n: string }>(
          db.url,
          "SELECT count(*) AS n FROM runs WHERE status = 'completed'",
        );
        return Number(row!.n) === RUNS;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `${RUNS} completed runs projected` },
    );
    const perRun = await query<{ run_id: string; n: string; max: number }>(
      db.url,
      'SELECT run_id, count(*) AS n, max(sequence) AS max FROM run_events GROUP BY run_id',
    );
    expect(perRun).toHaveLength(RUNS);
    const bad = perRun.filter((r) => Number(r.n) !== r.max + 1 || r.max !== 3);
    expect(bad).toEqual([]);
    const [dups] = await query<{ n: string }>(
      db.url,
      'SELECT count(*) AS n FROM (SELECT event_id FROM run_events GROUP BY event_id HAVING count(*) > 1) d',
    );
    expect(Number(dups!.n)).toBe(0);

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['apps/projector/dist/rebuild.main.js', '--target', rebuilt.url, '--compare'],
      { cwd: REPO_ROOT, env: { ...process.env, ...stack.env } },
    );
    expect(stdout).toContain(`${RUNS * 4} events read`);
    expect(stdout).toContain('projections identical to the live tables');
  });
});
