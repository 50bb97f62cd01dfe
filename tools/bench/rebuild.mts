/**
 * `npm run bench:rebuild` — how fast `npm run projector:rebuild` replays a run event log into a fresh
 * database (issue 19, item 6).
 *
 * 1. Seeds the run event topic of its own namespace (`OPENWOP_NAMESPACE`, default `bench-rebuild`)
 *    with EVENTS (default 220,000) valid run events (`RunEventDoc`, checked with the contracts'
 *    validator) of interleaved runs in the shapes the engine writes: approvals (accepted, rejected
 *    and asked again, still waiting, cancelled while waiting), clarifications, conversations with
 *    streamed chunks, parents with a child run, forks (`run.started.payload.forkedFrom`), failed
 *    runs. The log is deterministic (seeded PRNG): an existing topic holding the same count is reused.
 * 2. Times the rebuild REPS times (default 3) into `<db>_bench_rebuild`, alternating between the
 *    rebuild entry points given in REBUILD_BINS (comma-separated `rebuild.main.js` paths, default the
 *    built one), and prints each run's last line and the median events/s per entry point.
 *
 * Env: KAFKA_BROKERS (default 127.0.0.1:9092), DATABASE_URL (default the local Postgres, database
 * postgres), EVENTS, REPS, REBUILD_BINS, CPU_PROF (a directory: the rebuild runs with --cpu-prof there),
 * SEED_ONLY=1 (seed and stop). Last line: `summary: …`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { assertRunEvent, Topics, type RunEventDoc, type RunEventType } from '@openwop/contracts';
import { median } from './harness.mts';

const EVENTS = Number(process.env['EVENTS'] ?? 220_000);
const REPS = Number(process.env['REPS'] ?? 3);
const namespace = process.env['OPENWOP_NAMESPACE'] ?? 'bench-rebuild';
const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(',');
const databaseUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const bins = (process.env['REBUILD_BINS'] ?? 'apps/projector/dist/rebuild.main.js').split(',');
const topic = `${namespace}.${Topics.runEvents}`;
const PARTITIONS = 8;

/** Mulberry32: the same log on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(19);
const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const BASE = Date.UTC(2026, 10, 25, 0, 0, 0);
let clock = 0;
const now = (): string => new Date(BASE + clock++ * 3).toISOString();

/** One run's events as the engine writes them, sequence and causation filled in. */
class RunLog {
  readonly events: RunEventDoc[] = [];
  readonly runId: string;
  constructor(runId: string) {
    this.runId = runId;
  }
  emit(type: RunEventType, payload: Record<string, unknown>, nodeId?: string): this {
    const sequence = this.events.length;
    this.events.push({
      eventId: `${this.runId}:${sequence}`,
      runId: this.runId,
      ...(nodeId ? { nodeId } : {}),
      type,
      payload,
      timestamp: now(),
      sequence,
      schemaVersion: 1,
      ...(sequence > 0 ? { causationId: `${this.runId}:${sequence - 1}` } : {}),
    });
    return this;
  }
  node(nodeId: string, typeId = 'core.noop', outputs: Record<string, unknown> = {}): this {
    return this.emit('node.started', { nodeId, typeId, attempt: 0 }, nodeId).emit(
      'node.completed',
      { nodeId, outputs },
      nodeId,
    );
  }
  gate(
    nodeId: string,
    n: number,
    kind: 'approval' | 'clarification',
    end: 'answer' | 'reject' | 'wait',
  ): this {
    const interruptId = `${this.runId}:${nodeId}:${n}`;
    const data =
      kind === 'approval'
        ? {
            artifactId: `${this.runId}:${nodeId}`,
            artifactType: 'workflow-node',
            title: 'Approve the spend',
            description: 'Quarterly budget, 12,400 EUR',
            actions: ['accept', 'reject'],
          }
        : {
            questions: [
              { id: 'q1', question: 'Which region?' },
              { id: 'q2', question: 'Which quarter?' },
            ],
          };
    if (n === 0)
      this.emit(
        'node.started',
        { nodeId, typeId: kind === 'approval' ? 'core.approval' : 'core.clarify', attempt: 0 },
        nodeId,
      );
    this.emit(
      'interrupt.requested',
      {
        runId: this.runId,
        nodeId,
        interruptId,
        kind,
        key: interruptId,
        data,
        timeoutMs: 86_400_000,
        requestedAt: now(),
      },
      nodeId,
    );
    this.emit(
      kind === 'approval' ? 'approval.requested' : 'clarification.requested',
      { nodeId, interruptId, ...data },
      nodeId,
    );
    this.emit('node.suspended', { nodeId, reason: kind, interruptId, kind, key: interruptId }, nodeId);
    if (end === 'wait') return this;
    const action = end === 'reject' ? 'reject' : 'accept';
    const resumeValue =
      kind === 'approval'
        ? { action, decidedBy: 'key-t1', decidedAt: now() }
        : { answers: { q1: 'eu', q2: 'Q3' } };
    this.emit(
      kind === 'approval' ? 'approval.received' : 'clarification.resolved',
      { nodeId, interruptId, ...resumeValue },
      nodeId,
    );
    this.emit(
      'interrupt.resolved',
      {
        runId: this.runId,
        nodeId,
        interruptId,
        kind,
        key: interruptId,
        outcome: 'resolved',
        resumeValue,
        resolvedAt: now(),
        resolvedBy: 'key-t1',
      },
      nodeId,
    );
    return this.emit('node.resumed', { nodeId, interruptId }, nodeId);
  }
}

const tenants = ['t1', 't2', 't3', 'acme', 'globex'];
const started = (log: RunLog, workflowId: string, extra: Record<string, unknown> = {}): RunLog =>
  log.emit('run.started', {
    workflowId,
    inputs: { amount: Math.floor(random() * 10_000), region: pick(['eu', 'us']) },
    transport: 'rest',
    owner: { tenant: pick(tenants), principal: 'key-t1' },
    ...extra,
  });

/** The shapes of runs, each a generator of its events (yielded in bursts so runs interleave). */
function* runShape(runId: string): Generator<RunLog, void, void> {
  const log = new RunLog(runId);
  const r = random();
  if (r < 0.3) {
    // Approval accepted (sometimes rejected once and asked again first).
    started(log, 'expense-approval').node('start');
    yield log;
    if (random() < 0.3) {
      log.gate('gate', 0, 'approval', 'reject');
      yield log;
      log.gate('gate', 1, 'approval', 'answer');
    } else log.gate('gate', 0, 'approval', 'answer');
    yield log;
    log
      .emit('node.completed', { nodeId: 'gate', outputs: { approved: true } }, 'gate')
      .node('book', 'core.http', { booked: true, ref: runId.slice(-6) });
    log.emit('run.completed', { outputs: { booked: true } });
  } else if (r < 0.42) {
    // Still waiting for an approval: its pending row stays.
    started(log, 'expense-approval').node('start');
    yield log;
    log.gate('gate', 0, 'approval', 'wait');
  } else if (r < 0.47) {
    // Cancelled while waiting.
    started(log, 'expense-approval').node('start');
    yield log;
    log.gate('gate', 0, 'approval', 'wait');
    yield log;
    log.emit('run.cancelled', { reason: 'operator', cancelledBy: 'key-t1' });
  } else if (r < 0.55) {
    // Rejected: the run fails.
    started(log, 'expense-approval');
    log.gate('gate', 0, 'approval', 'reject');
    yield log;
    const error = {
      code: 'approval_rejected',
      message: 'approval gate gate was rejected',
      retryable: false,
      details: { reason: 'rejected', decidedBy: 'key-t1' },
    };
    log
      .emit('node.failed', { nodeId: 'gate', error, attempts: 1 }, 'gate')
      .emit('run.failed', { error, failedNodeId: 'gate' });
  } else if (r < 0.67) {
    // Clarification answered.
    started(log, 'intake');
    log.gate('ask', 0, 'clarification', 'answer');
    yield log;
    log
      .emit('node.completed', { nodeId: 'ask', outputs: { region: 'eu', quarter: 'Q3' } }, 'ask')
      .node('route');
    log.emit('run.completed', { outputs: { region: 'eu' } });
  } else if (r < 0.82) {
    // A conversation with streamed agent turns.
    started(log, 'wf-chat');
    log.emit('node.started', { nodeId: 'chat', typeId: 'agent.conversation', attempt: 0 }, 'chat');
    const conversationId = `${runId}:chat:0`;
    log.emit(
      'conversation.opened',
      {
        conversationId,
        participants: [{ agentId: 'host:planner' }],
        initialTurn: {
          messageId: `${conversationId}:0:system`,
          from: 'system',
          content: 'You plan trips.',
          ts: BASE + clock,
          role: 'system',
          turnIndex: 0,
        },
      },
      'chat',
    );
    const turns = 3 + Math.floor(random() * 6);
    let index = 1;
    for (let t = 0; t < turns; t++) {
      yield log;
      const messageId = `${conversationId}:${index}:agent`;
      for (const chunk of ['Let me ', 'check the ', 'trains.']) {
        log.emit(
          'output.chunk',
          {
            nodeId: 'chat',
            runId,
            chunk,
            isLast: false,
            meta: { conversationId, messageId, turnIndex: index, speakerId: 'host:planner' },
          },
          'chat',
        );
      }
      log.emit(
        'conversation.exchanged',
        {
          conversationId,
          turnIndex: index,
          turn: {
            messageId,
            from: 'host:planner',
            content: 'Let me check the trains.',
            ts: BASE + clock,
            role: 'agent',
            turnIndex: index,
            speakerId: 'host:planner',
          },
        },
        'chat',
      );
      index++;
      log.emit(
        'conversation.exchanged',
        {
          conversationId,
          turnIndex: index,
          turn: {
            messageId: `${conversationId}:${index}:user`,
            from: 'user',
            content: `Leaving on day ${t}`,
            ts: BASE + clock,
            role: 'user',
            turnIndex: index,
          },
        },
        'chat',
      );
      index++;
    }
    log.emit(
      'conversation.closed',
      {
        conversationId,
        turnIndex: index,
        finalTurn: {
          messageId: `${conversationId}:${index}:user`,
          from: 'user',
          content: 'thanks',
          ts: BASE + clock,
          role: 'user',
          turnIndex: index,
        },
        outcome: { booked: true },
      },
      'chat',
    );
    log
      .emit('node.completed', { nodeId: 'chat', outputs: { reply: 'booked' } }, 'chat')
      .emit('run.completed', { outputs: { reply: 'booked' } });
  } else if (r < 0.9) {
    // A fork of an earlier run, from after its gate (the fixed history re-stamped for the fork).
    started(log, 'expense-approval', {
      forkedFrom: { sourceRunId: `${runId}-source`, fromSeq: 3, mode: 'branch' },
    });
    log.node('start');
    log.gate('gate', 0, 'approval', 'answer');
    yield log;
    log
      .emit('node.completed', { nodeId: 'gate', outputs: { approved: true } }, 'gate')
      .node('book', 'core.http', { booked: true });
    log.emit('run.completed', { outputs: { booked: true } });
  } else {
    // A parent that starts a child run and hears it end.
    const childRunId = `${runId}-child`;
    started(log, 'parent');
    log.emit('node.started', { nodeId: 'sub', typeId: 'core.subWorkflow', attempt: 0 }, 'sub');
    log.emit('node.dispatched', { nodeId: 'sub', childRunId, childWorkflowId: 'child' }, 'sub');
    yield log;
    const child = new RunLog(childRunId);
    started(child, 'child', { parentRunId: runId, parentNodeId: 'sub' }).node('work', 'core.noop', {
      result: 42,
    });
    child.emit('run.completed', { outputs: { result: 42 } });
    yield child;
    log.emit('log.appended', {
      level: 'info',
      message: `child ${childRunId} completed`,
      nodeId: 'sub',
      fields: { event: 'child.ended', childRunId, status: 'completed' },
    });
    log
      .emit('node.completed', { nodeId: 'sub', outputs: { result: 42 } }, 'sub')
      .emit('run.completed', { outputs: { result: 42 } });
  }
  yield log;
}

/** The whole log in publish order: up to 200 runs in flight, each advancing a burst at a time. */
function generate(total: number): RunEventDoc[] {
  const out: RunEventDoc[] = [];
  const emitted = new Map<string, number>();
  const active: Generator<RunLog, void, void>[] = [];
  let n = 0;
  while (out.length < total || active.length > 0) {
    while (out.length < total && active.length < 200)
      active.push(runShape(`run-${(n++).toString(36).padStart(6, '0')}-bench`));
    const i = Math.floor(random() * active.length);
    const step = active[i]!.next();
    if (step.done) {
      active.splice(i, 1);
      continue;
    }
    const log = step.value;
    const from = emitted.get(log.runId) ?? 0;
    out.push(...log.events.slice(from));
    emitted.set(log.runId, log.events.length);
  }
  return out;
}

async function seed(): Promise<number> {
  const log = generate(EVENTS);
  // Every shape is a valid RunEventDoc (the first 2,000 and a sample after).
  for (const [i, e] of log.entries()) if (i < 2_000 || i % 97 === 0) assertRunEvent(e);
  const kafka = new Kafka({ clientId: 'bench-rebuild', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
  const stored = offsets.reduce((s, o) => s + Number(o.high) - Number(o.low), 0);
  if (stored === log.length) {
    await admin.disconnect();
    console.log(`topic ${topic} already holds the ${log.length} events`);
    return log.length;
  }
  if (offsets.length > 0) await admin.deleteTopics({ topics: [topic] });
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
      break;
    } catch (e) {
      if (attempt > 20) throw e; // a deleted topic of the same name takes a moment to go
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  const t0 = Date.now();
  for (let i = 0; i < log.length; i += 5_000) {
    const messages = log.slice(i, i + 5_000).map((e) => ({ key: e.runId, value: JSON.stringify(e) }));
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
  const types = new Map<string, number>();
  for (const e of log) types.set(e.type, (types.get(e.type) ?? 0) + 1);
  const runs = new Set(log.map((e) => e.runId)).size;
  console.log(
    `seeded ${topic}: ${log.length} events of ${runs} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  console.log(
    `  mix: ${[...types]
      .sort((a, b) => b[1] - a[1])
      .map(([t, c]) => `${t} ${c}`)
      .join(', ')}`,
  );
  return log.length;
}

async function dropDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = decodeURIComponent(admin.pathname.slice(1));
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
}

async function main(): Promise<void> {
  const total = await seed();
  if (process.env['SEED_ONLY'] === '1') return;
  const target = new URL(databaseUrl);
  target.pathname = `${target.pathname}_bench_rebuild`;
  const rates = new Map<string, number[]>(bins.map((b) => [b, []]));
  const cpuProf = process.env['CPU_PROF'];
  for (let rep = 0; rep < REPS; rep++) {
    for (const bin of rep % 2 === 0 ? bins : [...bins].reverse()) {
      const args = [
        ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []),
        bin,
        '--target',
        target.toString(),
      ];
      const { stdout } = await promisify(execFile)(process.execPath, args, {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          OPENWOP_NAMESPACE: namespace,
          KAFKA_BROKERS: brokers.join(','),
        },
        maxBuffer: 16 * 1024 * 1024,
      });
      const lines = stdout.trim().split('\n');
      const last = lines[lines.length - 1]!;
      const read = /(\d+) events read/.exec(stdout);
      if (!read || Number(read[1]) !== total)
        throw new Error(`${bin} read ${read?.[1]} events, the topic holds ${total}:\n${stdout}`);
      const rate = /(\d+) events\/s/.exec(last) ?? /(\d+) events\/s/.exec(stdout);
      rates.get(bin)!.push(Number(rate?.[1]));
      console.log(`rep ${rep + 1} ${bin}: ${last}`);
    }
  }
  await dropDatabase(target.toString());
  const medians = bins.map((b) => `${b}=${Math.round(median(rates.get(b)!))}`);
  for (const b of bins)
    console.log(`${b}: events/s ${rates.get(b)!.join(', ')} (median ${Math.round(median(rates.get(b)!))})`);
  console.log(`summary: events=${total} reps=${REPS} median_events_per_s ${medians.join(' ')}`);
}

main().catch((e: unknown) => {
  console.error('bench:rebuild failed:', e instanceof Error ? e.stack : e);
  process.exit(1);
});
