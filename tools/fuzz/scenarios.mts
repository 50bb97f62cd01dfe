/**
 * The stateful hostile classes: each starts its own runs, sends the hostile request and then
 * checks what the issue promises of it — a prompt answer, no resolving token in a narrow or foreign
 * principal's view, and a run that stays resolvable (terminal, or waiting on an interrupt).
 */
import { randomUUID } from 'node:crypto';
import { isTerminalRunStatus } from '@openwop/contracts';
import {
  bigWorkflow,
  ODD_NUMBERS,
  OBJECT_KEYS,
  protoKeyBodies,
  type HostileClass,
  type HostileRequest,
  type Keys,
} from './requests.mts';
import { EXPIRY_GRACE_MS, tokensIn } from './watch.mts';

export interface Outcome {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly ms: number;
}

export interface Snapshot {
  readonly status: string;
  readonly interrupt?: { nodeId?: string; interruptToken?: string; inspectToken?: string; kind?: string };
  readonly error?: unknown;
}

/** What the fuzzer lends a scenario. */
export interface Ctx {
  readonly base: string;
  readonly keys: Keys;
  /** Sends one hostile request and checks its answer (5xx, envelope, expected statuses, time); counts it under its class. */
  exec(r: HostileRequest): Promise<Outcome | undefined>;
  anomaly(kind: string, detail: string, request?: HostileRequest): void;
  /** A run the fuzzer made, and the key that may cancel it. */
  track(runId: string, key: string): void;
  /** Resolving tokens the fuzzer was handed (grepped for in the host's log). */
  readonly secrets: Set<string>;
  /** Size of the parallel workflow. */
  readonly parallelNodes: number;
  /** The bounds discovery advertises (`maxWorkflowNodes`, `maxWorkflowEdges`, `maxNodeExecutions`), when it does. */
  limits: { nodes?: number | undefined; edges?: number | undefined; executions?: number | undefined };
}

const r = (
  cls: HostileClass,
  method: string,
  endpoint: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  expect?: readonly number[],
  raw = false,
): HostileRequest => ({
  cls,
  endpoint,
  method,
  path,
  headers: {
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    accept: 'application/json',
  },
  ...(body !== undefined ? { body: raw && typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  mutating: method === 'POST',
  targets: [],
  ...(expect ? { expect } : {}),
});

function parse<T>(o: Outcome | undefined): T | undefined {
  try {
    return o ? (JSON.parse(o.body) as T) : undefined;
  } catch {
    return undefined;
  }
}

export async function snapshot(ctx: Ctx, runId: string, key: string): Promise<Snapshot | undefined> {
  const res = await fetch(`${ctx.base}/v1/runs/${runId}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(20_000),
  }).catch(() => undefined);
  if (!res || res.status !== 200) return undefined;
  const snap = (await res.json()) as Snapshot;
  if (snap.interrupt?.interruptToken) ctx.secrets.add(snap.interrupt.interruptToken);
  return snap;
}

/**
 * Waits until the run is terminal or waiting on an interrupt; a run still `running`/`pending` (or
 * waiting with no interrupt) past `ms` is stuck: an anomaly naming what was sent to it.
 */
export async function settle(
  ctx: Ctx,
  runId: string,
  key: string,
  cause: HostileRequest | undefined,
  ms = 20_000,
  want?: (s: Snapshot) => boolean,
  stuckIfNot = true,
): Promise<Snapshot | undefined> {
  const deadline = Date.now() + ms;
  let last: Snapshot | undefined;
  while (Date.now() < deadline) {
    last = await snapshot(ctx, runId, key);
    if (
      last &&
      (want
        ? want(last)
        : isTerminalRunStatus(last.status) || (last.status.startsWith('waiting') && last.interrupt))
    )
      return last;
    await new Promise((res) => setTimeout(res, 150));
  }
  if (stuckIfNot)
    ctx.anomaly(
      'stuck-run',
      `run ${runId} is ${last ? `${last.status}${last.interrupt ? ' with' : ' without'} an interrupt` : 'unreadable'} ${ms / 1000} s after ${cause ? 'this request' : 'it started'}`,
      cause,
    );
  return undefined;
}

async function startRun(
  ctx: Ctx,
  cls: HostileClass,
  body: unknown,
  key = ctx.keys.t1,
  raw = false,
): Promise<[string | undefined, HostileRequest, Outcome | undefined]> {
  const req = r(cls, 'POST', 'POST /v1/runs', '/v1/runs', key, body, undefined, raw);
  const o = await ctx.exec(req);
  const runId = o && o.status === 201 ? parse<{ runId: string }>(o)?.runId : undefined;
  if (runId) ctx.track(runId, key);
  return [runId, req, o];
}

/** Registers a workflow (expecting 201) for the scenarios; false when the host refused it. */
async function register(
  ctx: Ctx,
  cls: HostileClass,
  def: unknown,
  raw = false,
): Promise<[boolean, HostileRequest, Outcome | undefined]> {
  const req = r(cls, 'POST', 'POST /v1/workflows', '/v1/workflows', ctx.keys.t1, def, undefined, raw);
  const o = await ctx.exec(req);
  return [o?.status === 201, req, o];
}

const wf = (id: string, nodes: unknown[], edges: unknown[] = [], settings: Record<string, unknown> = {}) => ({
  id,
  name: id,
  version: '1.0.0',
  nodes,
  edges,
  triggers: [],
  variables: [],
  metadata: {},
  settings,
});

/** The workflows the scenarios start runs of (registered once). */
export const SCENARIO_WORKFLOWS = [
  wf('fuzz-conversation', [{ id: 'talk', typeId: 'core.conversationGate', config: { prompt: 'hi' } }]),
  wf('fuzz-custom', [{ id: 'gate', typeId: 'core.custom', config: { customKind: 'fuzz' } }]),
  wf(
    'fuzz-loop',
    [
      { id: 'a', typeId: 'core.noop', config: {} },
      { id: 'b', typeId: 'core.noop', config: {} },
    ],
    [
      { id: 'ab', sourceNodeId: 'a', targetNodeId: 'b' },
      { id: 'ba', sourceNodeId: 'b', targetNodeId: 'a' },
    ],
  ),
  wf('fuzz-redos', [
    {
      id: 'gate',
      typeId: 'core.custom',
      config: {
        customKind: 'redos',
        resumeSchema: {
          type: 'object',
          required: ['answer'],
          properties: { answer: { type: 'string', pattern: '^(a+)+$' } },
        },
      },
    },
  ]),
  wf('fuzz-redos-keys', [
    {
      id: 'gate',
      typeId: 'core.custom',
      config: {
        customKind: 'redos',
        resumeSchema: {
          type: 'object',
          propertyNames: { pattern: '^(a|a)*$' },
          patternProperties: { '^(b+)+$': { type: 'string' } },
        },
      },
    },
  ]),
  wf('fuzz-redos-turns', [
    {
      id: 'talk',
      typeId: 'core.conversationGate',
      config: { prompt: 'hi', turnSchema: { type: 'string', pattern: '^(\\w+\\s?)*$' } },
    },
  ]),
];

// ------------------------------------------------------------------ borrowed authority

/**
 * A run of tenant t1 waiting on an approval gate, seen by the read-only key, tenant t2's key and no
 * key through every read route (snapshot, lists, events as JSON and SSE, poll, conversations, the
 * inspect link): none may carry a resolving token (or an expired one); t2 sees nothing of the run;
 * the writes of both are refused and change nothing; a token found is tried, and must not resolve.
 */
export async function borrowedAuthority(ctx: Ctx): Promise<void> {
  const cls = 'borrowed-authority';
  const { keys } = ctx;
  for (const workflowId of ['conformance-approval', 'fuzz-conversation']) {
    const [runId] = await startRun(ctx, cls, { workflowId });
    if (!runId) continue;
    const own = await settle(ctx, runId, keys.t1, undefined);
    if (!own?.interrupt) continue;
    const inspect = own.interrupt.inspectToken;
    for (const [who, key] of [
      ['read-only key', keys.readonly],
      ['tenant t2', keys.t2],
      ['no key', undefined],
    ] as const) {
      const foreign = who === 'tenant t2';
      const reads = [
        r(
          cls,
          'GET',
          'GET /v1/runs/{runId}',
          `/v1/runs/${runId}`,
          key,
          undefined,
          foreign ? [403, 404] : key ? [200] : [401],
        ),
        r(
          cls,
          'GET',
          'GET /v1/runs/{runId}/events (JSON)',
          `/v1/runs/${runId}/events?after=-1`,
          key,
          undefined,
          foreign ? [403, 404] : key ? [200] : [401],
        ),
        r(
          cls,
          'GET',
          'GET /v1/runs/{runId}/events/poll',
          `/v1/runs/${runId}/events/poll?after=-1`,
          key,
          undefined,
          foreign ? [403, 404] : key ? [200] : [401],
        ),
        r(cls, 'GET', 'GET /v1/interrupts', '/v1/interrupts', key, undefined, key ? [200] : [401]),
        r(
          cls,
          'GET',
          'GET /v1/interrupts',
          `/v1/interrupts?runId=${runId}`,
          key,
          undefined,
          key ? [200] : [401],
        ),
        r(cls, 'GET', 'GET /v1/runs', '/v1/runs?limit=200', key, undefined, key ? [200] : [401]),
        r(
          cls,
          'GET',
          'GET /v1/runs/{runId}/conversations',
          `/v1/runs/${runId}/conversations`,
          key,
          undefined,
          foreign ? [403, 404] : key ? [200] : [401],
        ),
        ...(inspect ? [r(cls, 'GET', 'GET /v1/interrupts/{token}', `/v1/interrupts/${inspect}`, key)] : []),
      ];
      const seen: string[] = [];
      for (const q of reads) {
        const o = await ctx.exec(q);
        if (!o) continue;
        seen.push(o.body);
        // (The inspect link is the token's own authority, not the key's: whoever holds it may look.)
        if (foreign && o.status === 200 && !q.path.startsWith('/v1/interrupts/') && o.body.includes(runId))
          ctx.anomaly('tenant-leak', `${who} was shown run ${runId} of tenant t1`, q);
        inspectTokens(ctx, who, o.body, q);
      }
      const sse = await readSse(`${ctx.base}/v1/runs/${runId}/events?after=-1`, key);
      seen.push(sse);
      const sseReq = r(
        cls,
        'GET',
        'GET /v1/runs/{runId}/events (SSE)',
        `/v1/runs/${runId}/events?after=-1`,
        key,
      );
      inspectTokens(ctx, who, sse, sseReq);
      // Whatever resolving token a reader was shown, it must not resolve.
      for (const t of new Set(
        tokensIn(seen.join('\n'))
          .filter((t) => t.intent === 'resolve')
          .map((t) => t.token),
      )) {
        const q = r(cls, 'POST', 'POST /v1/interrupts/{token}', `/v1/interrupts/${t}`, undefined, {
          resumeValue: { action: 'reject' },
        });
        const o = await ctx.exec(q);
        if (o && o.status < 300)
          ctx.anomaly(
            'borrowed-authority',
            `a token the ${who} was shown resolved run ${runId} (${o.status})`,
            q,
          );
      }
      // Writes of a narrow or foreign principal: refused, and nothing changes.
      if (key) {
        const deny = foreign ? [403, 404] : [403];
        const writes = [
          r(
            cls,
            'POST',
            'POST /v1/runs/{runId}/approvals/{nodeId}',
            `/v1/runs/${runId}/approvals/gate`,
            key,
            { action: 'accept' },
            deny,
          ),
          r(
            cls,
            'POST',
            'POST /v1/runs/{runId}/interrupts/{nodeId}',
            `/v1/runs/${runId}/interrupts/${own.interrupt.nodeId ?? 'gate'}`,
            key,
            { resumeValue: { action: 'accept' } },
            deny,
          ),
          r(
            cls,
            'POST',
            'POST /v1/runs/{runId}:resolveInterrupt',
            `/v1/runs/${runId}:resolveInterrupt`,
            key,
            { nodeId: own.interrupt.nodeId ?? 'talk', operation: 'close', outcome: {} },
            deny,
          ),
          r(cls, 'POST', 'POST /v1/runs/{runId}/cancel', `/v1/runs/${runId}/cancel`, key, {}, deny),
          r(
            cls,
            'POST',
            'POST /v1/runs/{runId}:fork',
            `/v1/runs/${runId}:fork`,
            key,
            { mode: 'replay' },
            deny,
          ),
        ];
        for (const q of writes) await ctx.exec(q);
      }
    }
    const after = await snapshot(ctx, runId, keys.t1);
    if (after?.status !== own.status)
      ctx.anomaly(
        'borrowed-authority',
        `run ${runId} went from ${own.status} to ${after?.status ?? 'unreadable'} under refused requests of other principals`,
      );
    // The owner's resolving token still works (nothing above spent it).
    const token = after?.interrupt?.interruptToken;
    if (token && workflowId === 'conformance-approval') {
      const q = r(
        cls,
        'POST',
        'POST /v1/interrupts/{token}',
        `/v1/interrupts/${token}`,
        undefined,
        { resumeValue: { action: 'accept' } },
        [200, 202],
      );
      if ((await ctx.exec(q))?.status === 200)
        await settle(ctx, runId, keys.t1, q, 20_000, (s) => isTerminalRunStatus(s.status));
    }
  }
}

/** Flags resolving tokens in what `who` (no resolving authority) was shown, and expired tokens anywhere. */
export function inspectTokens(ctx: Ctx, who: string, body: string, q: HostileRequest): void {
  for (const t of tokensIn(body)) {
    if (t.intent === 'resolve') {
      ctx.secrets.add(t.token);
      if (who)
        ctx.anomaly('borrowed-authority', `the ${who} was handed a resolving token of run ${t.runId}`, q);
    }
    if (Date.parse(t.expiresAt) < Date.now() - EXPIRY_GRACE_MS)
      ctx.anomaly(
        'expired-token',
        `an expired ${t.intent} token (expiresAt ${t.expiresAt}) was handed out`,
        q,
      );
  }
}

/** The first ~1.5 s (or 64 KiB) of an SSE stream. */
async function readSse(url: string, key: string | undefined): Promise<string> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 1500);
  let text = '';
  try {
    const res = await fetch(url, {
      headers: { accept: 'text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      signal: ctl.signal,
    });
    const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array> | undefined;
    while (reader && text.length < 65_536) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += Buffer.from(chunk.value).toString('utf8');
    }
  } catch {
    // the deadline hung up
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
  return text;
}

// ------------------------------------------------------------------ odd numbers

/**
 * Odd numbers (rotating by `round`) in every numeric field a body carries: a gate's `timeoutMs`
 * and `requiredApprovals`, a custom interrupt's `timeoutMs`, a delay's `delayMs`, the run's
 * `recursionLimit` (on a two-node loop), a fork's `fromSeq`, a conversation turn's `ts` and
 * `turnIndex`. Refused (4xx) or accepted, each run must stay resolvable and end when answered.
 */
export async function oddNumbers(ctx: Ctx, round: number, per = 3): Promise<void> {
  const cls = 'odd-numbers';
  const { keys } = ctx;
  const values = Array.from({ length: per }, (_, i) => ODD_NUMBERS[(round * per + i) % ODD_NUMBERS.length]!);
  for (const v of values) {
    const tag = `${round}-${v.replace(/[^a-z0-9]/gi, '')}`;
    // Node configs with the odd number; registration may refuse them (400), never fail.
    const defs: [string, string, string][] = [
      [
        `fuzz-odd-gate-timeout-${tag}`,
        `{"id":"gate","typeId":"core.approvalGate","config":{"timeoutMs":${v}}}`,
        'approval',
      ],
      [
        `fuzz-odd-gate-approvals-${tag}`,
        `{"id":"gate","typeId":"core.approvalGate","config":{"requiredApprovals":${v}}}`,
        'approval',
      ],
      [
        `fuzz-odd-custom-timeout-${tag}`,
        `{"id":"gate","typeId":"core.custom","config":{"timeoutMs":${v}}}`,
        'custom',
      ],
      [
        `fuzz-odd-conversation-timeout-${tag}`,
        `{"id":"talk","typeId":"core.conversationGate","config":{"timeoutMs":${v}}}`,
        'conversation',
      ],
      [`fuzz-odd-delay-${tag}`, `{"id":"wait","typeId":"core.delay","config":{"delayMs":${v}}}`, 'delay'],
    ];
    for (const [id, node, kind] of defs) {
      const [ok] = await register(
        ctx,
        cls,
        `{"id":"${id}","name":"odd","version":"1.0.0","nodes":[${node}],"edges":[],"triggers":[],"variables":[],"metadata":{},"settings":{}}`,
        true,
      );
      if (!ok) continue;
      const [runId, req] = await startRun(ctx, cls, { workflowId: id });
      if (!runId) continue;
      if (kind !== 'delay') await answerAndEnd(ctx, cls, runId, kind, req);
      // A run on a durable delay is `running` with no interrupt until its timer: a cancel must end it.
      else if (!(await settle(ctx, runId, keys.t1, req, 3_000, (x) => isTerminalRunStatus(x.status), false)))
        await cancelAndEnd(ctx, runId, keys.t1, req);
    }
    // The run's own numbers: recursionLimit on a loop, inputs.
    for (const body of [
      `{"workflowId":"fuzz-loop","configurable":{"recursionLimit":${v}}}`,
      `{"workflowId":"fuzz-loop","configurable":{"run":{"recursionLimit":${v}}}}`,
      `{"workflowId":"conformance-noop","inputs":{"delayMs":${v},"n":${v}},"configurable":{"escalationThreshold":${v}}}`,
    ]) {
      const [runId, req] = await startRun(ctx, cls, body, keys.t1, true);
      if (runId) {
        const s = await settle(ctx, runId, keys.t1, req, 30_000, (x) => isTerminalRunStatus(x.status));
        if (!s) await cancelAndEnd(ctx, runId, keys.t1, req);
      }
    }
    // A fork from an odd sequence number.
    const [done] = await startRun(ctx, cls, { workflowId: 'conformance-noop' });
    if (done && (await settle(ctx, done, keys.t1, undefined))) {
      const q = r(
        cls,
        'POST',
        'POST /v1/runs/{runId}:fork',
        `/v1/runs/${done}:fork`,
        keys.t1,
        `{"mode":"replay","fromSeq":${v}}`,
        undefined,
        true,
      );
      const o = await ctx.exec(q);
      const forked = o && o.status < 300 ? parse<{ runId: string }>(o)?.runId : undefined;
      if (forked) {
        ctx.track(forked, keys.t1);
        await settle(ctx, forked, keys.t1, q);
      }
    }
    // Conversation turns with odd ts / turnIndex, then a close: the run must complete.
    for (const field of ['ts', 'turnIndex']) {
      const [runId] = await startRun(ctx, cls, { workflowId: 'fuzz-conversation' });
      if (!runId || !(await settle(ctx, runId, keys.t1, undefined))) continue;
      const turn = r(
        cls,
        'POST',
        'POST /v1/runs/{runId}:resolveInterrupt',
        `/v1/runs/${runId}:resolveInterrupt`,
        keys.t1,
        `{"nodeId":"talk","operation":"exchange","turn":{"messageId":"${randomUUID()}","from":"user","role":"user","content":"hi","${field}":${v}}}`,
        undefined,
        true,
      );
      await ctx.exec(turn);
      await answerAndEnd(ctx, cls, runId, 'conversation', turn);
    }
  }
}

/** Answers the run's pending interrupt as its owner would (when it waits) and requires it to end; else cancels it. */
async function answerAndEnd(
  ctx: Ctx,
  cls: HostileClass,
  runId: string,
  kind: string,
  cause: HostileRequest,
): Promise<void> {
  const { keys } = ctx;
  const s = await settle(ctx, runId, keys.t1, cause);
  if (!s) return void (await cancelAndEnd(ctx, runId, keys.t1, cause));
  if (isTerminalRunStatus(s.status)) return;
  const nodeId = s.interrupt?.nodeId ?? (kind === 'conversation' ? 'talk' : 'gate');
  const answer =
    kind === 'conversation'
      ? r(
          cls,
          'POST',
          'POST /v1/runs/{runId}:resolveInterrupt',
          `/v1/runs/${runId}:resolveInterrupt`,
          keys.t1,
          { nodeId, operation: 'close', outcome: { ok: true } },
          [200, 202],
        )
      : kind === 'approval'
        ? r(
            cls,
            'POST',
            'POST /v1/runs/{runId}/approvals/{nodeId}',
            `/v1/runs/${runId}/approvals/${nodeId}`,
            keys.t1,
            { action: 'accept' },
            [200, 202],
          )
        : r(
            cls,
            'POST',
            'POST /v1/runs/{runId}/interrupts/{nodeId}',
            `/v1/runs/${runId}/interrupts/${nodeId}`,
            keys.t1,
            { resumeValue: { ok: true } },
            [200, 202],
          );
  const o = await ctx.exec(answer);
  if (o && o.status < 300) {
    const end = await settle(
      ctx,
      runId,
      keys.t1,
      { ...answer, body: `${cause.body ?? ''} then ${answer.body ?? ''}` },
      20_000,
      (x) =>
        isTerminalRunStatus(x.status) || (x.status.startsWith('waiting') && x.interrupt?.nodeId !== nodeId),
    );
    if (!end) await cancelAndEnd(ctx, runId, keys.t1, cause);
  } else {
    await cancelAndEnd(ctx, runId, keys.t1, cause);
  }
}

/** Cancels a run and requires it to reach a terminal status within 20 s. */
export async function cancelAndEnd(
  ctx: Ctx,
  runId: string,
  key: string,
  cause?: HostileRequest,
): Promise<boolean> {
  await fetch(`${ctx.base}/v1/runs/${runId}/cancel`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{"reason":"fuzz: leftover"}',
    signal: AbortSignal.timeout(20_000),
  }).catch(() => undefined);
  const deadline = Date.now() + 20_000;
  let last: Snapshot | undefined;
  while (Date.now() < deadline) {
    last = await snapshot(ctx, runId, key);
    if (last && isTerminalRunStatus(last.status)) return true;
    await new Promise((res) => setTimeout(res, 200));
  }
  ctx.anomaly(
    'unresolvable-run',
    `run ${runId} is still ${last?.status ?? 'unreadable'} 20 s after a cancel${cause ? ' (it was sent the request below)' : ''}`,
    cause,
  );
  return false;
}

// ------------------------------------------------------------------ keys named after Object.prototype

/**
 * Keys named constructor / __proto__ / prototype / toString / … (rotating by `round`) at every level
 * of resume values on every resolve route (by key and by token link), of conversation turns, and of
 * run and workflow bodies; and as ids. Each answer must be prompt; the run must stay resolvable.
 */
export async function protoKeys(ctx: Ctx, round: number): Promise<void> {
  const cls = 'proto-keys';
  const { keys } = ctx;
  const key = OBJECT_KEYS[round % OBJECT_KEYS.length]!;
  const k = JSON.stringify(key);
  const bodies = protoKeyBodies(key, '{"action":"accept"}');
  for (const [i, body] of bodies.entries()) {
    const [runId] = await startRun(ctx, cls, { workflowId: 'conformance-approval' });
    const s = runId ? await settle(ctx, runId, keys.t1, undefined) : undefined;
    if (!runId || !s?.interrupt) continue;
    const token = s.interrupt.interruptToken;
    const routes = [
      r(
        cls,
        'POST',
        'POST /v1/runs/{runId}/interrupts/{nodeId}',
        `/v1/runs/${runId}/interrupts/gate`,
        keys.t1,
        body,
        undefined,
        true,
      ),
      r(
        cls,
        'POST',
        'POST /v1/runs/{runId}/approvals/{nodeId}',
        `/v1/runs/${runId}/approvals/gate`,
        keys.t1,
        `{"action":"accept",${k}:{${k}:1}}`,
        undefined,
        true,
      ),
      ...(token
        ? [
            r(
              cls,
              'POST',
              'POST /v1/interrupts/{token}',
              `/v1/interrupts/${token}`,
              undefined,
              body,
              undefined,
              true,
            ),
          ]
        : []),
      r(
        cls,
        'POST',
        'POST /v1/runs/{runId}:resolveInterrupt',
        `/v1/runs/${runId}:resolveInterrupt`,
        keys.t1,
        `{"nodeId":"gate",${k}:1,"resumeValue":{${k}:{"action":"accept"}}}`,
        undefined,
        true,
      ),
    ];
    // Rotating with the round, every body reaches every route over four rounds.
    const q = routes[(i + round) % routes.length]!;
    await ctx.exec(q);
    await answerAndEnd(ctx, cls, runId, 'approval', q);
  }
  // Conversation turns with such keys in content and in the turn itself.
  const [conv] = await startRun(ctx, cls, { workflowId: 'fuzz-conversation' });
  if (conv && (await settle(ctx, conv, keys.t1, undefined))) {
    const q = r(
      cls,
      'POST',
      'POST /v1/runs/{runId}:resolveInterrupt',
      `/v1/runs/${conv}:resolveInterrupt`,
      keys.t1,
      `{"nodeId":"talk","operation":"exchange",${k}:1,"turn":{${k}:{},"messageId":"${randomUUID()}","from":"user","role":"user","content":{${k}:{${k}:"x"}}}}`,
      undefined,
      true,
    );
    await ctx.exec(q);
    await answerAndEnd(ctx, cls, conv, 'conversation', q);
  }
  // Run bodies and workflow definitions, and the key as an id.
  for (const body of [
    `{"workflowId":"conformance-noop","inputs":{${k}:{${k}:1}},"metadata":{${k}:1},"configurable":{${k}:{"recursionLimit":1}}}`,
    `{${k}:{"workflowId":"conformance-noop"},"workflowId":"conformance-noop"}`,
    `{"workflowId":${k}}`,
  ]) {
    const [runId, req] = await startRun(ctx, cls, body, keys.t1, true);
    if (runId) await settle(ctx, runId, keys.t1, req, 20_000, (x) => isTerminalRunStatus(x.status));
  }
  const id = `fuzz-proto-${round}`;
  await register(
    ctx,
    cls,
    `{"id":"${id}","name":"p","version":"1.0.0",${k}:{},"nodes":[{"id":${k},"typeId":"core.noop","config":{${k}:{${k}:1}}},{"id":"b","typeId":"core.noop","config":{}}],"edges":[{"id":${k},"sourceNodeId":${k},"targetNodeId":"b"}],"triggers":[],"variables":[],"metadata":{${k}:1},"settings":{${k}:1}}`,
    true,
  );
  const [runId, req] = await startRun(ctx, cls, { workflowId: id });
  if (runId) await settle(ctx, runId, keys.t1, req, 20_000, (x) => isTerminalRunStatus(x.status));
  await ctx.exec(
    r(
      cls,
      'GET',
      'GET /v1/workflows/{workflowId}',
      `/v1/workflows/${encodeURIComponent(key)}`,
      keys.t1,
      undefined,
      [404],
    ),
  );
  await ctx.exec(
    r(cls, 'GET', 'GET /v1/runs/{runId}', `/v1/runs/${encodeURIComponent(key)}`, keys.t1, undefined, [404]),
  );
}

// ------------------------------------------------------------------ ReDoS and big graphs

/**
 * Patterns with catastrophic backtracking in a workflow's `resumeSchema` (value and property
 * names) and a conversation's `turnSchema`, answered through the token link with no API key (and
 * by key) with a string that matches at length and then fails: refused promptly, the run resolvable.
 */
export async function redos(ctx: Ctx): Promise<void> {
  const cls = 'redos';
  const { keys } = ctx;
  const evil = 'a'.repeat(28) + '!';
  for (const [workflowId, value] of [
    ['fuzz-redos', { answer: evil }],
    ['fuzz-redos-keys', { [evil]: 1, [`${'b'.repeat(28)}!`]: 'x' }],
  ] as const) {
    const [runId] = await startRun(ctx, cls, { workflowId });
    const s = runId ? await settle(ctx, runId, keys.t1, undefined) : undefined;
    if (!runId || !s?.interrupt) continue;
    const token = s.interrupt.interruptToken;
    const q = token
      ? r(
          cls,
          'POST',
          'POST /v1/interrupts/{token}',
          `/v1/interrupts/${token}`,
          undefined,
          { resumeValue: value },
          [400, 422],
        )
      : r(
          cls,
          'POST',
          'POST /v1/runs/{runId}/interrupts/{nodeId}',
          `/v1/runs/${runId}/interrupts/gate`,
          keys.t1,
          { resumeValue: value },
          [400, 422],
        );
    await ctx.exec(q);
    await ctx.exec(
      r(
        cls,
        'POST',
        'POST /v1/runs/{runId}/interrupts/{nodeId}',
        `/v1/runs/${runId}/interrupts/gate`,
        keys.t1,
        { resumeValue: value },
        [400, 409, 422],
      ),
    );
    const after = await settle(ctx, runId, keys.t1, q);
    if (after && !isTerminalRunStatus(after.status)) await cancelAndEnd(ctx, runId, keys.t1, q);
  }
  // Patterns a linear-time engine does not take (backreferences, lookbehind), that do not compile,
  // or that expand hugely: refused at registration, or answered promptly with the run still resolvable.
  for (const [i, pattern] of [
    '^(a+)\\1$',
    '(?<=a+)b',
    '(',
    'a{99999}{99999}',
    '((a*)*)*$',
    `^(${'a|'.repeat(2000)}a)+$`,
  ].entries()) {
    const id = `fuzz-redos-odd-${i}-${randomUUID().slice(0, 8)}`;
    const [ok] = await register(
      ctx,
      cls,
      wf(id, [
        {
          id: 'gate',
          typeId: 'core.custom',
          config: { resumeSchema: { type: 'object', properties: { answer: { type: 'string', pattern } } } },
        },
      ]),
    );
    if (!ok) continue;
    const [runId] = await startRun(ctx, cls, { workflowId: id });
    const s = runId ? await settle(ctx, runId, keys.t1, undefined) : undefined;
    if (!runId || !s?.interrupt) continue;
    const q = r(
      cls,
      'POST',
      'POST /v1/runs/{runId}/interrupts/{nodeId}',
      `/v1/runs/${runId}/interrupts/gate`,
      keys.t1,
      { resumeValue: { answer: `${'a'.repeat(40)}!` } },
    );
    await ctx.exec(q);
    await answerAndEnd(ctx, cls, runId, 'custom', q);
  }
  const [conv] = await startRun(ctx, cls, { workflowId: 'fuzz-redos-turns' });
  if (conv && (await settle(ctx, conv, keys.t1, undefined))) {
    const q = r(
      cls,
      'POST',
      'POST /v1/runs/{runId}:resolveInterrupt',
      `/v1/runs/${conv}:resolveInterrupt`,
      keys.t1,
      {
        nodeId: 'talk',
        operation: 'exchange',
        turn: {
          messageId: randomUUID(),
          from: 'user',
          role: 'user',
          content: `${'ab '.repeat(12)}${'a'.repeat(20)}!`,
        },
      },
      [400, 422],
    );
    await ctx.exec(q);
    await answerAndEnd(ctx, cls, conv, 'conversation', q);
  }
}

/**
 * A workflow of `ctx.parallelNodes` noop nodes fanning out from one (the issue's 4,000): registered
 * or refused as over the advertised bound; when refused, the widest workflow the bound allows is
 * registered instead. Each accepted one is run (with a recursion limit that lets every node
 * execute, within the advertised bound) and must end within 60 s.
 */
export async function parallelWorkflow(ctx: Ctx, round: number): Promise<void> {
  const cls = 'parallel-workflow';
  const sizes = [ctx.parallelNodes];
  const bound = ctx.limits.nodes;
  if (bound && ctx.parallelNodes + 1 > bound) sizes.push(bound - 1); // + the start node
  for (const n of sizes) {
    const id = `fuzz-parallel-${n}-${round}`;
    const [ok, req, o] = await register(ctx, cls, bigWorkflow(id, n, 'parallel'));
    if (!ok) {
      if (o && n + 1 <= (bound ?? Infinity))
        ctx.anomaly(
          'expectation',
          `a ${n + 1}-node workflow within the advertised bound (${bound ?? 'none'}) was refused: ${o.status} ${o.body.slice(0, 200)}`,
          req,
        );
      continue;
    }
    const limit = Math.min(n + 1, ctx.limits.executions ?? n + 1);
    const [runId, start] = await startRun(ctx, cls, {
      workflowId: id,
      configurable: { recursionLimit: limit },
    });
    if (
      runId &&
      !(await settle(
        ctx,
        runId,
        ctx.keys.t1,
        { ...start, body: `${start.body} (after registering ${req.body?.slice(0, 200)}…)` },
        60_000,
        (x) => isTerminalRunStatus(x.status),
      ))
    ) {
      await cancelAndEnd(ctx, runId, ctx.keys.t1, start);
    }
  }
}

// ------------------------------------------------------------------ oversize values

/**
 * Values past the bounds of what one record holds, each under the body limit: a conversation turn
 * of 100 KB and one of 60,000 array items, a roster of 1,000 participants, a 10,000-character node
 * id, a resume value of 40,000 keys, run options with 5,000 tags. Refused or accepted, every answer
 * is prompt and every run still ends.
 */
export async function oversizeValues(ctx: Ctx): Promise<void> {
  const cls = 'oversize-values';
  const { keys } = ctx;
  const [conv] = await startRun(ctx, cls, { workflowId: 'fuzz-conversation' });
  if (conv && (await settle(ctx, conv, keys.t1, undefined))) {
    let last: HostileRequest | undefined;
    for (const content of ['x'.repeat(100_000), Array.from({ length: 60_000 }, () => 0)]) {
      last = r(
        cls,
        'POST',
        'POST /v1/runs/{runId}:resolveInterrupt',
        `/v1/runs/${conv}:resolveInterrupt`,
        keys.t1,
        {
          nodeId: 'talk',
          operation: 'exchange',
          turn: { messageId: randomUUID(), from: 'user', role: 'user', content },
        },
        [400, 413],
      );
      await ctx.exec(last);
    }
    await answerAndEnd(ctx, cls, conv, 'conversation', last!);
  }
  const participants = Array.from({ length: 1000 }, (_, i) => ({ agentId: `agent-${i}`, name: `a${i}` }));
  await ctx.exec(
    r(
      cls,
      'POST',
      'POST /v1/workflows',
      '/v1/workflows',
      keys.t1,
      wf('fuzz-oversize-roster', [{ id: 'talk', typeId: 'core.conversationGate', config: { participants } }]),
      [400, 422],
    ),
  );
  await ctx.exec(
    r(
      cls,
      'POST',
      'POST /v1/workflows',
      '/v1/workflows',
      keys.t1,
      wf('fuzz-oversize-id', [{ id: 'n'.repeat(10_000), typeId: 'core.noop', config: {} }]),
      [400],
    ),
  );
  await ctx.exec(
    r(
      cls,
      'POST',
      'POST /v1/workflows',
      '/v1/workflows',
      keys.t1,
      wf('w'.repeat(10_000), [{ id: 'a', typeId: 'core.noop', config: {} }]),
      [400],
    ),
  );
  const [approval] = await startRun(ctx, cls, { workflowId: 'conformance-approval' });
  if (approval && (await settle(ctx, approval, keys.t1, undefined))) {
    const wide = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, i]));
    const q = r(
      cls,
      'POST',
      'POST /v1/runs/{runId}/interrupts/{nodeId}',
      `/v1/runs/${approval}/interrupts/gate`,
      keys.t1,
      { resumeValue: { action: 'accept', ...wide } },
    );
    await ctx.exec(q);
    await answerAndEnd(ctx, cls, approval, 'approval', q);
  }
  const [tagged, req] = await startRun(ctx, cls, {
    workflowId: 'conformance-noop',
    tags: Array.from({ length: 5000 }, (_, i) => `t${i}`),
    metadata: { blob: 'm'.repeat(200_000) },
  });
  if (tagged) await settle(ctx, tagged, keys.t1, req, 20_000, (x) => isTerminalRunStatus(x.status));
}
