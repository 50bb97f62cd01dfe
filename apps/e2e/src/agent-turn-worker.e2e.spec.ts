import {
  createTestDatabase,
  startDistributedStack,
  TEST_KEYS,
  waitFor,
  type RunningHost,
  type TestDatabase,
} from '@openwop/testing';
import { query } from './e2e-kit';

/**
 * Agent turns run off the engine's command consumer (ADR 0037), on the distributed stack with one
 * partition per topic (every run shares the engine's one command partition) and one engine:
 * (a) a conversation whose agent streams a long reply (~12 s) does not hold up another
 *     conversation's agent, which answers meanwhile (before, it waited behind it on the partition);
 * (b) an engine killed (-9) while its agent streams a reply completes the turn after its restart,
 *     once: the retried claim calls the provider again, the transcript holds the reply once.
 */
const TOKEN_DELAY_MS = 150;
// ~12 s to stream: long enough that the other conversation's reply lands first even on a busy box.
const SLOW_REPLY = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');

async function call(baseUrl: string, method: string, path: string, body?: unknown) {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: {
      authorization: `Bearer ${TEST_KEYS.t1}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

describe('agent turns on their own workers (one partition, one engine)', () => {
  let db: TestDatabase;
  let stack: RunningHost;
  let gateway: string;

  beforeAll(async () => {
    db = await createTestDatabase('e2e_agent_turn_worker');
    stack = await startDistributedStack({
      databaseUrl: db.url,
      env: {
        KAFKA_PARTITIONS: '1',
        AGENT_TOKEN_DELAY_MS: String(TOKEN_DELAY_MS),
        AGENT_TURN_LEASE_MS: '2000',
      },
    });
    gateway = stack.gateways[0]!;
    for (const [id, script] of [
      ['slow-agent', [SLOW_REPLY, 'you are welcome']],
      ['fast-agent', ['quick']],
    ] as const) {
      const created = await call(gateway, 'POST', '/v1/workflows', {
        id,
        name: id,
        version: '1.0.0',
        nodes: [{ id: 'talk', typeId: 'agent.conversation', config: { provider: 'scripted', script } }],
        edges: [],
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await stack?.stop();
    await db?.drop();
  });

  const start = async (workflowId: string): Promise<string> => {
    const started = await call(gateway, 'POST', '/v1/runs', { workflowId });
    expect(started.status).toBe(201);
    return String(started.body.runId);
  };
  const agentTurns = (runId: string) =>
    query<{ turn_index: number; message_id: string; content: unknown }>(
      db.url,
      "SELECT turn_index, message_id, content FROM conversation_turns WHERE conversation_id = $1 AND role = 'agent' ORDER BY turn_index",
      [`${runId}:talk:0`],
    );
  const chunkIndexes = async (runId: string): Promise<number[]> =>
    (
      await query<{ i: number }>(
        db.url,
        "SELECT (event->'payload'->'meta'->>'chunkIndex')::int AS i FROM engine_run_events WHERE run_id = $1 AND event->>'type' = 'output.chunk' ORDER BY sequence",
        [runId],
      )
    ).map((r) => r.i);
  const streaming = (runId: string) =>
    waitFor(async () => ((await chunkIndexes(runId)).length > 0 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: `run ${runId}'s agent to stream`,
    });
  const replied = (runId: string, timeoutMs = 60_000) =>
    waitFor(async () => ((await agentTurns(runId)).length > 0 ? true : undefined), {
      timeoutMs,
      intervalMs: 100,
      what: `run ${runId}'s agent turn`,
    });

  it('(a) a long reply streaming on the only partition does not hold up another conversation', async () => {
    const slow = await start('slow-agent');
    await streaming(slow);
    const fast = await start('fast-agent');
    await replied(fast);
    // The fast agent answered while the slow one was still streaming on the same partition.
    expect(await agentTurns(slow)).toEqual([]);
    await replied(slow);
    expect((await agentTurns(slow)).map((t) => t.content)).toEqual([SLOW_REPLY]);
  });

  it('(b) kill -9 of the engine mid-reply: the restarted engine completes the turn exactly once', async () => {
    const runId = await start('slow-agent');
    await streaming(runId);
    const engine = stack.processes.find((p) => p.name === 'engine')!;
    await engine.kill('SIGKILL');
    stack.processes.splice(stack.processes.indexOf(engine), 1);
    // Streaming stopped with the process; the owed turn is still a row, claimed by the dead engine.
    const owed = await query<{ attempts: number }>(
      db.url,
      'SELECT attempts FROM engine_agent_turns WHERE run_id = $1',
      [runId],
    );
    expect(owed).toEqual([{ attempts: 1 }]);
    await stack.restart('engine');
    await replied(runId);
    await waitFor(
      async () =>
        (await query(db.url, 'SELECT 1 FROM engine_agent_turns WHERE run_id = $1', [runId])).length === 0
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 100, what: 'the owed turn to be settled' },
    );
    const turns = await agentTurns(runId);
    expect(turns.map((t) => [t.turn_index, t.content])).toEqual([[1, SLOW_REPLY]]);
    const exchanged = await query<{ n: string }>(
      db.url,
      "SELECT count(*) AS n FROM engine_run_events WHERE run_id = $1 AND event->>'type' = 'conversation.exchanged'",
      [runId],
    );
    expect(Number(exchanged[0]!.n)).toBe(1);
    // The second claim streamed the reply again from its first chunk: the provider was called twice.
    expect((await chunkIndexes(runId)).filter((i) => i === 0)).toHaveLength(2);

    // The conversation goes on after the restart: a person's turn is answered.
    const sent = await call(gateway, 'POST', `/v1/runs/${runId}:resolveInterrupt`, {
      nodeId: 'talk',
      operation: 'exchange',
      turn: { messageId: `${runId}:user:0`, from: 'user', role: 'user', content: 'thanks' },
    });
    expect([sent.status, sent.body.turnIndex]).toEqual([200, 2]);
    await waitFor(async () => ((await agentTurns(runId)).length === 2 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the agent to answer after the restart',
    });
    expect((await agentTurns(runId)).map((t) => t.content)).toEqual([SLOW_REPLY, 'you are welcome']);
  });
});
