import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  createTestDatabase,
  REPO_ROOT,
  startDistributedStack,
  TEST_KEYS,
  waitFor,
  type AppProcess,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { query } from './e2e-kit';

/**
 * Invariant 2 for conversations: kill -9 of any service in the middle of conversations (an agent
 * streaming, a turn in flight, a projection write) loses no turn and doubles none. Every person's
 * turn is sent with a fixed messageId and re-sent after a 503 or a dropped connection; every
 * conversation still ends with the exact transcript, and the projections equal a rebuild.
 */
const RUNS = Number(process.env.E2E_CONVERSATION_CRASH_RUNS ?? 12);
const EXCHANGES = 4;
const RESTART_AFTER_MS = 1_500;
const HANG_MS = 30_000;

interface Turn {
  messageId: string;
  role: string;
  turnIndex: number;
  content: unknown;
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    const res = await fetch(new URL(path, baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${TEST_KEYS.t1}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  } catch {
    return { status: 0, body: {} };
  }
}

describe('kill -9 of every service in the middle of conversations', () => {
  let db: TestDatabase;
  let rebuilt: TestDatabase;
  let stack: RunningHost;
  const restarts: Promise<AppProcess>[] = [];
  let kills = 0;

  beforeAll(async () => {
    db = await createTestDatabase('e2e_conversation_crash');
    rebuilt = await createTestDatabase('e2e_conversation_crash_rebuild');
    // A slow token stream keeps agents mid-reply when their engine dies.
    stack = await startDistributedStack({
      databaseUrl: db.url,
      instances: 2,
      env: { AGENT_TOKEN_DELAY_MS: '15' },
    });
  });
  afterAll(async () => {
    await Promise.allSettled(restarts);
    await stack?.stop();
    await db?.drop();
    await rebuilt?.drop();
  });

  it(`${RUNS} conversations of ${EXCHANGES} exchanges each keep every turn exactly once`, async () => {
    const gateways = stack.gateways;
    const script = Array.from(
      { length: EXCHANGES + 1 },
      (_, i) => `reply number ${i} from the agent, streamed word by word`,
    );
    const created = await call(gateways[0]!, 'POST', '/v1/workflows', {
      id: 'crash-conversation',
      name: 'crash conversation',
      version: '1.0.0',
      nodes: [{ id: 'talk', typeId: 'agent.conversation', config: { provider: 'scripted', script } }],
      edges: [],
    });
    expect(created.status).toBe(201);

    /** Retries a request until it is answered (not 503, not a dropped connection). */
    const retrying = async (i: number, method: string, path: string, body?: unknown) => {
      for (let attempt = 0; ; attempt++) {
        const r = await call(gateways[(i + attempt) % gateways.length]!, method, path, body);
        if (r.status !== 0 && r.status !== 503) return r;
        if (attempt > 40) throw new Error(`${method} ${path} never answered`);
        await new Promise((res) => setTimeout(res, 250));
      }
    };
    const transcriptOf = async (i: number, runId: string): Promise<Turn[]> => {
      const r = await retrying(
        i,
        'GET',
        `/v1/runs/${runId}/conversations/${encodeURIComponent(`${runId}:talk:0`)}?limit=1000`,
      );
      return r.status === 200 ? (r.body.turns as Turn[]) : [];
    };
    const waitTurns = (i: number, runId: string, n: number) =>
      waitFor(async () => ((await transcriptOf(i, runId)).length >= n ? true : undefined), {
        timeoutMs: 90_000,
        intervalMs: 200,
        what: `run ${runId} to reach ${n} turns`,
      });

    const talk = async (i: number): Promise<string> => {
      const started = await retrying(i, 'POST', '/v1/runs', { workflowId: 'crash-conversation' });
      expect(started.status).toBe(201);
      const runId = String(started.body.runId);
      await waitTurns(i, runId, 2);
      for (let k = 0; k < EXCHANGES; k++) {
        const turn = {
          messageId: `${runId}:user:${k}`,
          from: 'user',
          role: 'user',
          content: `question ${k}`,
        };
        const sent = await retrying(i, 'POST', `/v1/runs/${runId}:resolveInterrupt`, {
          nodeId: 'talk',
          operation: 'exchange',
          turn,
        });
        expect([sent.status, sent.body.turnIndex]).toEqual([200, 2 + 2 * k]);
        await waitTurns(i, runId, 4 + 2 * k);
      }
      const closed = await retrying(i, 'POST', `/v1/runs/${runId}:resolveInterrupt`, {
        nodeId: 'talk',
        operation: 'close',
      });
      // A close whose first attempt took effect before a 503 is answered 409 on the retry.
      expect([200, 409]).toContain(closed.status);
      return runId;
    };

    // Kill one instance of every service in turn while the conversations run.
    const chaos = (async () => {
      for (const app of ['engine', 'interrupt', 'projector', 'gateway', 'token', 'engine', 'interrupt']) {
        await new Promise((r) => setTimeout(r, 2_500));
        const victim = stack.processes.find((p) => p.name === app);
        if (!victim) continue;
        await victim.kill('SIGKILL');
        kills++;
        stack.processes.splice(stack.processes.indexOf(victim), 1);
        restarts.push(
          new Promise<void>((r) => setTimeout(r, RESTART_AFTER_MS)).then(() => stack.restart(victim.name)),
        );
      }
    })();
    const runIds = await Promise.all(Array.from({ length: RUNS }, (_, i) => talk(i)));
    await chaos;
    await Promise.all(restarts);
    expect(kills).toBeGreaterThanOrEqual(5);

    await waitFor(
      async () => {
        const [row] = await query<{ n: string }>(
          db.url,
          "SELECT count(*) AS n FROM runs WHERE status = 'completed' AND run_id = ANY($1)",
          [runIds],
        );
        return Number(row!.n) === RUNS ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: `${RUNS} conversations completed` },
    );

    // Exactly the expected transcript: greeting, then (question, answer) × EXCHANGES, then the close.
    const turnsPerRun = 2 + 2 * EXCHANGES + 1;
    for (const runId of runIds) {
      const turns = await query<{ turn_index: number; role: string; message_id: string; content: unknown }>(
        db.url,
        'SELECT turn_index, role, message_id, content FROM conversation_turns WHERE conversation_id = $1 ORDER BY turn_index',
        [`${runId}:talk:0`],
      );
      expect(turns.map((t) => t.turn_index)).toEqual(Array.from({ length: turnsPerRun }, (_, i) => i));
      expect(new Set(turns.map((t) => t.message_id)).size).toBe(turnsPerRun);
      expect(turns.map((t) => t.role)).toEqual([
        'system',
        'agent',
        ...Array.from({ length: EXCHANGES }, () => ['user', 'agent']).flat(),
        'system',
      ]);
      const agentReplies = turns.filter((t) => t.role === 'agent').map((t) => t.content);
      expect(agentReplies).toEqual(script);
      const events = await query<{ type: string; n: string }>(
        db.url,
        "SELECT type, count(*) AS n FROM run_events WHERE run_id = $1 AND type LIKE 'conversation.%' GROUP BY 1",
        [runId],
      );
      expect(Object.fromEntries(events.map((e) => [e.type, Number(e.n)]))).toEqual({
        'conversation.opened': 1,
        'conversation.exchanged': turnsPerRun - 2,
        'conversation.closed': 1,
      });
    }

    await waitFor(
      async () =>
        Number((await query<{ n: string }>(db.url, 'SELECT count(*) AS n FROM outbox'))[0]!.n) === 0
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 250, what: 'the outbox to drain' },
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['apps/projector/dist/rebuild.main.js', '--target', rebuilt.url, '--compare'],
      { cwd: REPO_ROOT, env: { ...process.env, ...stack.env } },
    );
    expect(stdout).toContain('projections identical to the live tables');
    console.log(
      `conversation crash: ${RUNS} conversations × ${EXCHANGES} exchanges, ${kills} kill -9, every transcript exact`,
    );
  });
});
