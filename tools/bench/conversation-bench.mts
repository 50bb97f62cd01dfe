/**
 * One long conversation against a running host: an `agent.conversation` node with a scripted agent
 * (turn 0 system, turn 1 the agent's opening, then EXCHANGES user/agent pairs, then the close's
 * system turn), so the transcript holds at least TURNS turns.
 *
 * - exchange round trip: from the POST of a user turn (`:resolveInterrupt`, operation `exchange`) to
 *   the agent's reply seen by a client, i.e. its `conversation.exchanged` frame (turn.role `agent`) on
 *   the SSE stream `GET /v1/runs/{id}/events?streamMode=messages`; also the POST alone and the first
 *   `ai.message.chunk` of the reply. A progress line per PROGRESS exchanges shows whether the cost
 *   grows with the conversation's length.
 * - transcript fetch: `GET /v1/runs/{id}/conversations/{cid}?after=&limit=1000` paged to the end,
 *   FETCH_REPS times once the projection holds every turn.
 * - integrity: turnIndex 0..N-1 without gaps, no duplicate messageId, the roles and the agent's
 *   replies in script order; any violation exits 1.
 *
 * Env: WOP_URL, WOP_API_KEY, NAME, TURNS (default 10000), PROGRESS, EXCHANGE_TIMEOUT_MS, FETCH_REPS.
 * The last line: `summary: mode=… turns=… exchange_p50_ms=… …`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sseFrames } from './sse-frames.mts';

const url = process.env.WOP_URL ?? 'http://127.0.0.1:8080';
const key = process.env.WOP_API_KEY ?? '';
const name = process.env.NAME ?? 'openwop';
const mode = name.replace(/^openwop-/, '');
const TURNS = Math.max(5, Number(process.env.TURNS ?? 10_000));
// 0 system + 1 opening agent turn + 2 per exchange + 1 closing system turn ≥ TURNS.
const EXCHANGES = Math.ceil((TURNS - 3) / 2);
const TOTAL = 3 + 2 * EXCHANGES;
const PROGRESS = Number(process.env.PROGRESS ?? Math.max(50, Math.round(EXCHANGES / 10)));
const EXCHANGE_TIMEOUT_MS = Number(process.env.EXCHANGE_TIMEOUT_MS ?? 30_000);
const FETCH_REPS = Math.max(1, Number(process.env.FETCH_REPS ?? 3));
const PAGE = 1000;
const NODE = 'chat';
const headers = {
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json',
};

interface Turn {
  messageId: string;
  from: string;
  role: string;
  turnIndex: number;
  content: unknown;
}
interface Transcript {
  status: string;
  turnCount: number;
  turns: Turn[];
  nextCursor?: number;
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

function pct(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function stats(xs: readonly number[]): { p50: number; p90: number; p99: number; max: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    p50: pct(s, 50),
    p90: pct(s, 90),
    p99: pct(s, 99),
    max: s.at(-1) ?? Number.NaN,
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

const ms = (x: number): string => x.toFixed(2);
const line = (label: string, xs: readonly number[]): string => {
  const s = stats(xs);
  return `${label}: n=${xs.length} p50=${ms(s.p50)}ms p90=${ms(s.p90)}ms p99=${ms(s.p99)}ms max=${ms(s.max)}ms mean=${ms(s.mean)}ms`;
};

/** Arrival times (performance.now) of SSE frames by turn index, with waiters for the ones not seen yet. */
class Arrivals {
  private readonly seen = new Map<number, number>();
  private readonly waiting = new Map<number, (t: number) => void>();

  mark(turnIndex: number, t: number): void {
    if (this.seen.has(turnIndex)) return;
    this.seen.set(turnIndex, t);
    this.waiting.get(turnIndex)?.(t);
    this.waiting.delete(turnIndex);
  }

  at(turnIndex: number): number | undefined {
    return this.seen.get(turnIndex);
  }

  wait(turnIndex: number, timeoutMs: number, what: string): Promise<number> {
    const t = this.seen.get(turnIndex);
    if (t !== undefined) return Promise.resolve(t);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(turnIndex);
        reject(new Error(`${what}: turn ${turnIndex} not seen on the stream within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(turnIndex, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}

/** Follows the run's `messages` stream; marks agent turns and the first chunk of each agent turn. */
function follow(
  runId: string,
  agentTurns: Arrivals,
  firstChunks: Arrivals,
  closed: Arrivals,
  decidedAt: Map<number, number>,
): { done: Promise<void>; stop: () => void } {
  const abort = new AbortController();
  const done = (async () => {
    for await (const { event, body: data, at: now } of sseFrames(
      `${url}/v1/runs/${runId}/events?streamMode=messages`,
      key,
      abort.signal,
    )) {
      const body = data as {
        payload?: { turnIndex?: number; turn?: { role?: string; ts?: number } };
        meta?: { turnIndex?: number };
      };
      if (event === 'conversation.exchanged' && body.payload?.turn?.role === 'agent') {
        agentTurns.mark(body.payload.turnIndex!, now);
        // turn.ts is the wall clock (ms) at which the interrupt service decided the agent's turn.
        decidedAt.set(body.payload.turnIndex!, body.payload.turn.ts ?? Number.NaN);
      } else if (event === 'ai.message.chunk' && body.meta?.turnIndex !== undefined)
        firstChunks.mark(body.meta.turnIndex, now);
      else if (event === 'conversation.closed') closed.mark(0, now);
    }
  })().catch((e: unknown) => {
    if (!abort.signal.aborted) throw e;
  });
  return { done, stop: () => abort.abort() };
}

async function fetchTranscript(
  runId: string,
  conversationId: string,
): Promise<{ turns: Turn[]; pages: number; last: Transcript }> {
  const turns: Turn[] = [];
  let after = -1;
  let pages = 0;
  for (;;) {
    const page = await call<Transcript>(
      'GET',
      `/v1/runs/${runId}/conversations/${encodeURIComponent(conversationId)}?after=${after}&limit=${PAGE}`,
    );
    pages++;
    turns.push(...page.turns);
    if (page.nextCursor === undefined) return { turns, pages, last: page };
    after = page.nextCursor;
  }
}

function check(turns: readonly Turn[], script: readonly string[], turnCount: number): void {
  if (turns.length !== TOTAL) fail(`transcript has ${turns.length} turns, expected ${TOTAL}`);
  if (turnCount !== TOTAL) fail(`conversation turnCount ${turnCount}, expected ${TOTAL}`);
  const ids = new Set<string>();
  let agent = 0;
  turns.forEach((t, i) => {
    if (t.turnIndex !== i) fail(`turn at position ${i} has turnIndex ${t.turnIndex} (gap or disorder)`);
    if (ids.has(t.messageId)) fail(`duplicate messageId ${t.messageId} at turnIndex ${i}`);
    ids.add(t.messageId);
    const role = i === 0 || i === TOTAL - 1 ? 'system' : i % 2 === 1 ? 'agent' : 'user';
    if (t.role !== role) fail(`turn ${i} has role ${t.role}, expected ${role}`);
    if (role === 'agent' && t.content !== script[agent++])
      fail(
        `agent turn ${i} says ${JSON.stringify(t.content)}, expected ${JSON.stringify(script[agent - 1])}`,
      );
  });
}

const script = Array.from({ length: EXCHANGES + 1 }, (_, i) => `reply ${i}`);
const workflowId = `bench-conversation-${process.pid}-${Date.now().toString(36)}`;
console.log(
  `# ${name}: TURNS=${TURNS} → ${EXCHANGES} exchanges, ${TOTAL} turns; reply seen via SSE streamMode=messages (conversation.exchanged, role agent)`,
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
const tStart = performance.now();
const { runId } = await call<{ runId: string }>('POST', '/v1/runs', { workflowId });
const conversationId = `${runId}:${NODE}:0`;
const agentTurns = new Arrivals();
const firstChunks = new Arrivals();
const closed = new Arrivals();
const decidedAt = new Map<number, number>();
const stream = follow(runId, agentTurns, firstChunks, closed, decidedAt);
await agentTurns.wait(1, EXCHANGE_TIMEOUT_MS, 'opening agent turn');
console.log(`  run ${runId}: start → opening agent turn ${ms(agentTurns.at(1)! - tStart)}ms`);

const roundTrips: number[] = [];
const posts: number[] = [];
const chunks: number[] = [];
const toDecided: number[] = [];
const toSeen: number[] = [];
const tLoop = performance.now();
let tWindow = tLoop;
for (let i = 1; i <= EXCHANGES; i++) {
  const a = performance.now();
  const wall = performance.timeOrigin + a;
  const accepted = await call<{ status: string; turnIndex: number }>(
    'POST',
    `/v1/runs/${runId}:resolveInterrupt`,
    {
      nodeId: NODE,
      operation: 'exchange',
      turn: { messageId: randomUUID(), from: 'user', role: 'user', content: `question ${i}` },
    },
  );
  const b = performance.now();
  if (accepted.status !== 'accepted' || accepted.turnIndex !== 2 * i)
    fail(`exchange ${i} answered ${JSON.stringify(accepted)}, expected accepted at turnIndex ${2 * i}`);
  const seen = await agentTurns
    .wait(accepted.turnIndex + 1, EXCHANGE_TIMEOUT_MS, `exchange ${i}`)
    .catch((e: unknown) => fail(String(e)));
  posts.push(b - a);
  roundTrips.push(seen - a);
  const chunk = firstChunks.at(accepted.turnIndex + 1);
  if (chunk !== undefined) chunks.push(chunk - a);
  const decided = decidedAt.get(accepted.turnIndex + 1) ?? Number.NaN;
  toDecided.push(decided - wall);
  toSeen.push(performance.timeOrigin + seen - decided);
  if (i % PROGRESS === 0 || i === EXCHANGES) {
    const now = performance.now();
    const from = i - ((i - 1) % PROGRESS) - 1;
    const s = stats(roundTrips.slice(from));
    console.log(
      `  exchanges ${from + 1}..${i} (turns ≤ ${2 * i + 1}): p50=${ms(s.p50)}ms p99=${ms(s.p99)}ms max=${ms(s.max)}ms ` +
        `${((i - from) / ((now - tWindow) / 1000)).toFixed(1)} exchanges/s, elapsed ${((now - tLoop) / 1000).toFixed(1)}s`,
    );
    tWindow = now;
  }
}
const loopS = (performance.now() - tLoop) / 1000;

await call('POST', `/v1/runs/${runId}:resolveInterrupt`, {
  nodeId: NODE,
  operation: 'close',
  outcome: { done: true },
});
await closed.wait(0, EXCHANGE_TIMEOUT_MS, 'close').catch((e: unknown) => fail(String(e)));
// The stream ends at the run's terminal event.
await Promise.race([stream.done, new Promise((r) => setTimeout(r, EXCHANGE_TIMEOUT_MS))]);
stream.stop();
const run = await call<{ status: string }>('GET', `/v1/runs/${runId}`);
if (run.status !== 'completed') fail(`run ended ${run.status}, expected completed`);

// The projection is written after the run log; wait (bounded) until it holds every turn.
const projectionDeadline = performance.now() + 120_000;
for (;;) {
  const summary = await call<Transcript>(
    'GET',
    `/v1/runs/${runId}/conversations/${encodeURIComponent(conversationId)}?limit=1`,
  );
  if (summary.status === 'closed' && summary.turnCount >= TOTAL) break;
  if (performance.now() > projectionDeadline)
    fail(`projection still ${summary.status} with ${summary.turnCount} turns after 120 s`);
  await new Promise((r) => setTimeout(r, 200));
}

const fetches: number[] = [];
let last: Awaited<ReturnType<typeof fetchTranscript>> | undefined;
for (let r = 0; r < FETCH_REPS; r++) {
  const a = performance.now();
  last = await fetchTranscript(runId, conversationId);
  fetches.push(performance.now() - a);
  check(last.turns, script, last.last.turnCount);
}
const fetchMs = [...fetches].sort((a, b) => a - b)[(fetches.length - 1) >> 1]!;
const rt = stats(roundTrips);

console.log(`  ${line('exchange round trip (POST → agent turn on SSE)', roundTrips)}`);
console.log(`  ${line('exchange POST (accepted)', posts)}`);
console.log(`  ${line('POST → first ai.message.chunk of the reply', chunks)}`);
console.log(`  ${line('POST → agent turn decided (turn.ts, ms clock)', toDecided)}`);
console.log(`  ${line('agent turn decided → seen on SSE (projection + stream)', toSeen)}`);
console.log(
  `  exchanges: ${EXCHANGES} in ${loopS.toFixed(1)}s = ${(EXCHANGES / loopS).toFixed(1)} exchanges/s`,
);
console.log(
  `  transcript fetch: ${TOTAL} turns in ${last!.pages} pages of ≤${PAGE}: ${fetches.map(ms).join(' / ')}ms (median ${ms(fetchMs)}ms, ` +
    `${(TOTAL / (fetchMs / 1000)).toFixed(0)} turns/s)`,
);
console.log(
  `  checks: turnIndex 0..${TOTAL - 1} gapless, ${TOTAL} distinct messageIds, roles and agent replies in script order: ok`,
);
console.log(
  `summary: mode=${mode} turns=${TOTAL} exchanges=${EXCHANGES} via=sse exchange_p50_ms=${ms(rt.p50)} exchange_p90_ms=${ms(rt.p90)} ` +
    `exchange_p99_ms=${ms(rt.p99)} exchange_max_ms=${ms(rt.max)} exchange_mean_ms=${ms(rt.mean)} ` +
    `transcript_fetch_ms=${ms(fetchMs)} transcript_turns_per_s=${(TOTAL / (fetchMs / 1000)).toFixed(0)} checks=ok`,
);
