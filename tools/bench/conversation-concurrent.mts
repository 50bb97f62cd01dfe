/**
 * Many agent conversations at once against a running host: CONVERSATIONS `agent.conversation` runs
 * (default 64), each with a scripted agent whose every reply is two words, and EXCHANGES user/agent
 * exchanges per conversation (default 5), all driven concurrently. The host is started with
 * `AGENT_TOKEN_DELAY_MS` = REPLY_MS / 2, so each reply takes REPLY_MS (default 1000 ms) to stream:
 * the bench measures how many agent turns the host completes per second when the LLM, not the
 * host, is slow — a host that streams replies inside its command consumer is capped by its
 * partitions (ADR 0037).
 *
 * - agent turns/s: every agent turn (openings and replies) seen on the runs' SSE streams
 *   (`conversation.exchanged`, role agent) between the first run's start and the last reply, and
 *   the replies alone over the exchange phase (after every opening turn was seen);
 * - integrity: each transcript gapless, no duplicate messageId, the agent's replies in script order.
 *
 * Env: WOP_URL, WOP_API_KEY, NAME, CONVERSATIONS, EXCHANGES, EXCHANGE_TIMEOUT_MS (default 180000), REPLY_MS
 * (reported only; the host's delay is set by conversation.sh).
 * The last line: `summary: mode=… conversations=… agent_turns_per_s=… …`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sseFrames } from './sse-frames.mts';

const url = process.env.WOP_URL ?? 'http://127.0.0.1:8080';
const key = process.env.WOP_API_KEY ?? '';
const name = process.env.NAME ?? 'openwop';
const mode = name.replace(/^openwop-/, '');
const CONVERSATIONS = Math.max(1, Number(process.env.CONVERSATIONS ?? 64));
const EXCHANGES = Math.max(1, Number(process.env.EXCHANGES ?? 5));
const EXCHANGE_TIMEOUT_MS = Number(process.env.EXCHANGE_TIMEOUT_MS ?? 180_000);
const REPLY_MS = Number(process.env.REPLY_MS ?? 1000);
// 0 system (opened) + 1 opening agent turn + 2 per exchange + 1 closing system turn.
const TOTAL = 3 + 2 * EXCHANGES;
const NODE = 'chat';
const headers = {
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json',
};

interface Turn {
  messageId: string;
  role: string;
  turnIndex: number;
  content: unknown;
}

function fail(message: string): never {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Agent turns of one run seen on its SSE stream, by turn index, with waiters. */
class Conversation {
  readonly seen = new Map<number, number>();
  private readonly waiting = new Map<number, () => void>();
  closed = false;
  private onClosed: (() => void) | undefined;
  private readonly abort = new AbortController();
  done: Promise<void> = Promise.resolve();

  readonly runId: string;

  constructor(runId: string) {
    this.runId = runId;
  }

  follow(onTurn: (at: number) => void): void {
    this.done = (async () => {
      for await (const { event, body: data, at: now } of sseFrames(
        `${url}/v1/runs/${this.runId}/events?streamMode=messages`,
        key,
        this.abort.signal,
      )) {
        const body = data as { payload?: { turnIndex?: number; turn?: { role?: string } } };
        if (event === 'conversation.exchanged' && body.payload?.turn?.role === 'agent') {
          const i = body.payload.turnIndex!;
          if (this.seen.has(i)) continue;
          this.seen.set(i, now);
          onTurn(now);
          this.waiting.get(i)?.();
          this.waiting.delete(i);
        } else if (event === 'conversation.closed') {
          this.closed = true;
          this.onClosed?.();
        }
      }
    })().catch((e: unknown) => {
      if (!this.abort.signal.aborted) throw e;
    });
  }

  wait(turnIndex: number): Promise<void> {
    if (this.seen.has(turnIndex)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`run ${this.runId}: agent turn ${turnIndex} not seen within ${EXCHANGE_TIMEOUT_MS} ms`),
          ),
        EXCHANGE_TIMEOUT_MS,
      );
      this.waiting.set(turnIndex, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  waitClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`run ${this.runId}: not closed within ${EXCHANGE_TIMEOUT_MS} ms`)),
        EXCHANGE_TIMEOUT_MS,
      );
      this.onClosed = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  stop(): void {
    this.abort.abort();
  }
}

async function transcript(runId: string): Promise<{ status: string; turnCount: number; turns: Turn[] }> {
  return call(
    'GET',
    `/v1/runs/${runId}/conversations/${encodeURIComponent(`${runId}:${NODE}:0`)}?after=-1&limit=1000`,
  );
}

const script = Array.from({ length: EXCHANGES + 1 }, (_, i) => `reply ${i}`);
const workflowId = `bench-conversations-${process.pid}-${Date.now().toString(36)}`;
console.log(
  `# ${name}: ${CONVERSATIONS} conversations at once, ${EXCHANGES} exchanges each, replies of ~${REPLY_MS} ms (scripted, AGENT_TOKEN_DELAY_MS); ` +
    `turns seen via SSE streamMode=messages`,
);
await call('POST', '/v1/workflows', {
  id: workflowId,
  name: workflowId,
  version: '1.0.0',
  nodes: [
    {
      id: NODE,
      typeId: 'agent.conversation',
      config: { provider: 'scripted', system_prompt: 'You answer briefly.', script },
    },
    { id: 'after', typeId: 'core.noop', config: {} },
  ],
  edges: [{ id: 'e1', sourceNodeId: NODE, targetNodeId: 'after' }],
});

let agentTurns = 0;
let lastTurnAt = 0;
const onTurn = (at: number): void => {
  agentTurns++;
  lastTurnAt = at;
};
const tStart = performance.now();
const conversations = await Promise.all(
  Array.from({ length: CONVERSATIONS }, async () => {
    const { runId } = await call<{ runId: string }>('POST', '/v1/runs', { workflowId });
    const c = new Conversation(runId);
    c.follow(onTurn);
    return c;
  }),
);
await Promise.all(conversations.map((c) => c.wait(1))).catch((e: unknown) => fail(String(e)));
const tOpened = performance.now();
const openings = agentTurns;
console.log(`  ${CONVERSATIONS} opening agent turns in ${((tOpened - tStart) / 1000).toFixed(1)}s`);

const roundTrips: number[] = [];
await Promise.all(
  conversations.map(async (c) => {
    for (let i = 1; i <= EXCHANGES; i++) {
      const a = performance.now();
      const accepted = await call<{ status: string; turnIndex: number }>(
        'POST',
        `/v1/runs/${c.runId}:resolveInterrupt`,
        {
          nodeId: NODE,
          operation: 'exchange',
          turn: { messageId: randomUUID(), from: 'user', role: 'user', content: `question ${i}` },
        },
      );
      if (accepted.status !== 'accepted' || accepted.turnIndex !== 2 * i)
        fail(
          `run ${c.runId} exchange ${i} answered ${JSON.stringify(accepted)}, expected accepted at turnIndex ${2 * i}`,
        );
      await c.wait(accepted.turnIndex + 1).catch((e: unknown) => fail(String(e)));
      roundTrips.push(performance.now() - a);
    }
  }),
);
const tEnd = performance.now();
const replies = agentTurns - openings;

await Promise.all(
  conversations.map(async (c) => {
    await call('POST', `/v1/runs/${c.runId}:resolveInterrupt`, {
      nodeId: NODE,
      operation: 'close',
      outcome: { done: true },
    });
    await c.waitClosed().catch((e: unknown) => fail(String(e)));
  }),
);
for (const c of conversations) c.stop();

// Integrity, once the projection holds every turn of every conversation (bounded wait).
const deadline = performance.now() + 120_000;
for (const c of conversations) {
  for (;;) {
    const t = await transcript(c.runId);
    if (t.status === 'closed' && t.turnCount >= TOTAL) {
      if (t.turns.length !== TOTAL)
        fail(`run ${c.runId}: transcript has ${t.turns.length} turns, expected ${TOTAL}`);
      const ids = new Set<string>();
      let agent = 0;
      t.turns.forEach((turn, i) => {
        if (turn.turnIndex !== i)
          fail(`run ${c.runId}: turn at position ${i} has turnIndex ${turn.turnIndex}`);
        if (ids.has(turn.messageId)) fail(`run ${c.runId}: duplicate messageId ${turn.messageId}`);
        ids.add(turn.messageId);
        const role = i === 0 || i === TOTAL - 1 ? 'system' : i % 2 === 1 ? 'agent' : 'user';
        if (turn.role !== role) fail(`run ${c.runId}: turn ${i} has role ${turn.role}, expected ${role}`);
        if (role === 'agent' && turn.content !== script[agent++])
          fail(`run ${c.runId}: agent turn ${i} says ${JSON.stringify(turn.content)}`);
      });
      break;
    }
    if (performance.now() > deadline)
      fail(`run ${c.runId}: projection ${t.status} with ${t.turnCount} turns after 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const sorted = [...roundTrips].sort((a, b) => a - b);
const p = (q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((q / 100) * sorted.length) - 1))]!;
const allRate = agentTurns / ((lastTurnAt - tStart) / 1000);
const replyRate = replies / ((tEnd - tOpened) / 1000);
console.log(
  `  exchanges: ${replies} agent replies in ${((tEnd - tOpened) / 1000).toFixed(1)}s = ${replyRate.toFixed(1)} agent turns/s`,
);
console.log(
  `  all agent turns (openings too): ${agentTurns} in ${((lastTurnAt - tStart) / 1000).toFixed(1)}s = ${allRate.toFixed(1)} agent turns/s`,
);
console.log(
  `  exchange round trip (POST → agent turn on SSE): p50=${p(50).toFixed(0)}ms p90=${p(90).toFixed(0)}ms p99=${p(99).toFixed(0)}ms max=${sorted.at(-1)!.toFixed(0)}ms`,
);
console.log(
  `  checks: ${CONVERSATIONS} transcripts of ${TOTAL} turns, gapless, distinct messageIds, replies in script order: ok`,
);
console.log(
  `summary: mode=${mode} conversations=${CONVERSATIONS} exchanges=${EXCHANGES} reply_ms=${REPLY_MS} agent_turns=${agentTurns} ` +
    `agent_turns_per_s=${replyRate.toFixed(1)} all_agent_turns_per_s=${allRate.toFixed(1)} exchange_p50_ms=${p(50).toFixed(0)} ` +
    `exchange_p99_ms=${p(99).toFixed(0)} checks=ok`,
);
